import { describe, type ChangeSetOptions } from '@tidemark/cluster';
import type { DriftItem, KubernetesManifest } from '@tidemark/contracts';
import { breakGlassAnnotation, breakGlassOf, computeDrift, driftPolicyOf, driftRulesOf } from '@tidemark/drift';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { inventoryEntry, inventoryId } from '../render/stage-render';

/** DriftCheck collects, during one apply, the drift it healed and the drift it only reported. */
export interface DriftCheck {
  options: ChangeSetOptions;
  healed: DriftItem[];
  reported: DriftItem[];
  /** Objects a cluster admin lifted prevention on (tidemark.dev/break-glass): their drift is reported, not healed. */
  brokenGlass: string[];
}

/**
 * driftCheck decides, object by object, between healing and reporting drift. Drift exists only
 * while Git is unchanged for the object: a difference after a new commit is the commit being
 * applied. An object the last run applied that is now gone has drifted too (it was deleted).
 * Ignored fields are neither reported nor healed while Git is unchanged; a new commit applies
 * Git's value for them like for any other field. A sync hook's run is never drift.
 */
export function driftCheck(run: ReconcileRun, deps: PipelineDependencies): DriftCheck {
  const check: DriftCheck = { healed: [], reported: [], brokenGlass: [], options: {} };
  // A sync hook's run is never drift: created once, then left to run as it is.
  if (run.hookState) return { ...check, options: { decide: (_object, live) => (live ? 'skip' : 'apply') } };
  const gitUnchanged = Boolean(run.previous?.lastAppliedRevision) && run.previous?.specHash === run.specHash;
  if (!gitUnchanged) return check;
  const applied = new Set((run.previous?.inventory ?? []).map(inventoryId));
  const now = deps.now?.() ?? new Date();
  check.options.decide = (object, live, dryRun) => {
    if (!live && !wasApplied(run, object, applied)) return 'apply';
    const brokenGlass = breakGlassOf(live);
    if (brokenGlass !== undefined) check.brokenGlass.push(`${describe(object)} (${breakGlassAnnotation}: ${brokenGlass || 'no reason given'})`);
    const input = { desired: dryRun, live, fieldManager: run.connection.fieldManager, now };
    const items = computeDrift({ ...input, rules: driftRulesOf(object, deps.options?.driftRules) }).map((item) => ({ ...item, object: describe(object) }));
    // Only ignored fields differ: leave them to whoever changed them.
    if (items.length === 0) return computeDrift(input).length > 0 ? 'skip' : 'apply';
    if (brokenGlass !== undefined) {
      check.reported.push(...items);
      return 'skip';
    }
    if (driftPolicyOf(object, deps.options?.driftPolicies, deps.driftPolicyFor?.(run.job.source)) === 'report') {
      check.reported.push(...items);
      return 'skip';
    }
    check.healed.push(...items);
    return 'apply';
  };
  return check;
}

function wasApplied(run: ReconcileRun, object: KubernetesManifest, inventory: Set<string>): boolean {
  // A plain manifest is its own inventory; a CR's objects are in the CR's inventory.
  if (!run.plugin) return true;
  const isTheCustomResource = object.kind === run.object?.kind && object.apiVersion === run.object.apiVersion && object.metadata.name === run.object.metadata.name;
  return isTheCustomResource || inventory.has(inventoryId(inventoryEntry(object)));
}

/** driftSummary is the short text etcd gets; the items themselves go to the status store. */
export function driftSummary(items: readonly DriftItem[]): string {
  const shown = items.slice(0, 3).map((item) => `${item.object ?? ''} ${item.path} (by ${item.manager})`.trim());
  const more = items.length > 3 ? ` and ${items.length - 3} more` : '';
  return `${items.length} field${items.length === 1 ? '' : 's'} drifted from Git: ${shown.join(', ')}${more}.`;
}
