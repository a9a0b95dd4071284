import { applyChangeSet, applyWithChangeSet, toReconcileFailure, describe, type ChangeSetEntry, type ChangeSetOptions, type KnownState } from '@tidemark/cluster';
import { TerminalError, type KubernetesManifest, type DriftItem } from '@tidemark/contracts';
import { noSpan, type TraceSpan } from '@tidemark/tracing';
import { breakGlassAnnotation, breakGlassOf, computeDrift, driftPolicyOf, driftRulesOf } from '@tidemark/drift';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { appliedBefore, appliedVersionOf, hashedOnce, leftByLastApply, type AppliedObjects } from './apply-results';
import { customResourceToApply, validationFailure, type ValidatedResource } from '../render/stage-validate';
import { inventoryEntry, inventoryId } from '../render/tracking';
import { tracedApplies } from '../observe/observe-run';
import { subjectOf } from '../observe/subject';
import { checkRenderedAllowed, identityPreflight } from '../fetch/tenancy';
import { cachedLive, type CacheRun } from '../fetch/stage-fetch';
import { ensurePrevention } from '../gates/stage-gates';

/** ApplyRun is the part of the run apply reads: what fetch read and validate checked, the hook state, and the cached reads it counts. */
export type ApplyRun = CacheRun & Pick<ReconcileRun, 'ref' | 'stage' | 'desired' | 'plugin' | 'object' | 'live' | 'specHash' | 'hookState' | 'kindNotServed' | 'prevention'>;

/**
 * ApplyDependencies is what apply reads: the watch cache, the source's tenancy and owner (its
 * refusals), the drift policies and the drift-prevention keeper it asks before writing.
 */
export type ApplyDependencies = Pick<PipelineDependencies, 'cacheFor' | 'tenancyFor' | 'ownerOf' | 'driftPolicyFor' | 'driftPrevention' | 'options' | 'now'>;

/**
 * applyStage applies the CR (for a kind) and the rendered objects with server-side apply in
 * dependency order, healing or reporting drift as each object's policy says. The CR goes first
 * and is neither read nor dry-run again: fetch read it and validate dry-ran it, or, when it does
 * not exist yet, its creation here is its validation (a refusal is ValidationFailed, and nothing
 * it renders is applied). An object whose last apply left it at the version it still has is not
 * dry-run at all: unchanged in Git, it is not written either (appliedBefore); changed, it is
 * applied at once (leftByLastApply).
 */
export async function applyStage(run: ApplyRun, deps: ApplyDependencies, rendered: KubernetesManifest[], validated?: ValidatedResource, span: TraceSpan = noSpan): Promise<AppliedObjects> {
  run.stage = 'apply';
  const drift = driftCheck(run, deps);
  const cached = cachedLive(run, deps);
  const hashOf = hashedOnce();
  const options: ChangeSetOptions = { ...drift.options, appliedBefore: appliedBefore(run.previous, hashOf), leftByLastApply: leftByLastApply(run.previous), known: plainManifestLive(run), ...(cached ? { cached } : {}), ...tracedApplies(span) };
  try {
    await checkRenderedAllowed(run, deps, rendered);
    checkClusterObjects(run, deps, rendered);
    await identityPreflight(run, rendered);
    await ensurePrevention(run, deps, run.plugin && run.object ? [customResourceToApply(run), ...rendered] : rendered);
    let live = run.live;
    const warned: ChangeSetEntry[] = [];
    const versions: [KubernetesManifest, ChangeSetEntry][] = [];
    if (run.plugin && run.object) {
      const known = { live: run.live, ...(validated?.dryRun ? { dryRun: validated.dryRun } : {}) };
      const object = customResourceToApply(run);
      const apply = () => applyWithChangeSet(run.connection, object, options, known);
      const entry = await observed(options, object, apply).catch((error: unknown) => {
        // A CR created without a dry-run: its creation is its validation, and nothing it renders was written yet.
        throw validated?.validatedByCreation ? validationFailure(run, error) : error;
      });
      live = entry.object;
      warned.push(entry);
      versions.push([object, entry]);
    }
    const changes = await applyChangeSet(run.connection, rendered, options);
    if (!run.plugin) live = changes[0]?.object ?? live;
    versions.push(...rendered.map((object, index): [KubernetesManifest, ChangeSetEntry] => [object, changes[index]!]));
    return {
      live,
      changes,
      versions: Object.fromEntries(versions.flatMap(([object, entry]) => {
        const version = appliedVersionOf(object, entry, hashOf);
        return version ? [version] : [];
      })),
      // A hook's run is owned like a kind's objects: the next run's prune removes this one.
      inventory: run.plugin || run.hookState ? rendered.map(inventoryEntry) : [],
      drift: { healed: drift.healed, reported: drift.reported },
      warnings: [...apiWarnings([...warned, ...changes]), ...breakGlassWarnings(drift.brokenGlass)],
    };
  } catch (error) {
    throw toReconcileFailure(error, `apply ${subjectOf(run)}`);
  }
}

/** observed runs one object's apply through the options' observer (its trace span), if any. */
function observed(options: ChangeSetOptions, object: KubernetesManifest, apply: () => Promise<ChangeSetEntry>): Promise<ChangeSetEntry> {
  return options.observeApply ? options.observeApply(object, apply) : apply();
}

/** plainManifestLive: a plain manifest is its own rendered object, and fetch read it live already. */
function plainManifestLive(run: ApplyRun): ((object: KubernetesManifest) => KnownState | undefined) | undefined {
  if (run.plugin || !run.object || run.kindNotServed) return undefined;
  const id = inventoryId(inventoryEntry(run.object));
  return (object) => (inventoryId(inventoryEntry(object)) === id ? { live: run.live } : undefined);
}

/** apiWarnings are what the API server warned about (a deprecated apiVersion), as the object's warnings. */
function apiWarnings(entries: readonly ChangeSetEntry[]): string[] {
  return entries.flatMap((entry) => (entry.warnings ?? []).map((warning) => `The API server warns about ${entry.subject}: ${warning}`));
}

/** breakGlassWarnings say, while a cluster admin's break-glass annotation is set, that Tidemark reports drift there instead of healing it. */
function breakGlassWarnings(objects: readonly string[]): string[] {
  return objects.map((object) => `Drift prevention is lifted on ${object}: edits outside Git are allowed and reported, not healed, until a cluster admin removes the annotation.`);
}

/** The group of Tidemark's Cluster kind (libs/cluster-objects' clusterGroup; the pipeline may not import that library). */
const clusterGroup = 'tidemark.dev';
const clusterKind = 'Cluster';

/**
 * checkClusterObjects refuses, before anything is sent, a tidemark.dev Cluster that a tenant's
 * source would apply and that would hand the hub's power to that tenant: one that says inCluster
 * (the reconciler's own ServiceAccount), or one whose kubeconfig Secret is named outside the
 * Cluster's own namespace. Every version of the group counts, and a Cluster a kind renders as well
 * as one in Git. An operator-owned source (deps.ownerOf, a config-file source) may.
 */
export function checkClusterObjects(run: ApplyRun, deps: ApplyDependencies, objects: readonly KubernetesManifest[]): void {
  if ((deps.ownerOf?.(run.job.source) ?? 'operator') === 'operator') return;
  for (const object of objects) {
    if (!isClusterObject(object)) continue;
    const problem = clusterObjectProblem(object, object.metadata.namespace ?? run.object?.metadata.namespace ?? '');
    if (!problem) continue;
    const where = `${run.desired?.path ?? 'Git'}: Cluster ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
    throw new TerminalError('NotAllowed', `${where}: ${problem}. Source ${run.job.source} is a tenant's, and only the operator's tidemark.yaml sources may declare that; nothing was sent to the cluster for it.`);
  }
}

/** isClusterObject tells a tidemark.dev Cluster of any version. */
function isClusterObject(object: KubernetesManifest): boolean {
  return object.kind === clusterKind && typeof object.apiVersion === 'string' && object.apiVersion.split('/')[0] === clusterGroup;
}

/** clusterObjectProblem names the field of a Cluster that a tenant may not set, or undefined. */
function clusterObjectProblem(object: KubernetesManifest, namespace: string): string | undefined {
  const spec = (object as { spec?: unknown }).spec;
  if (typeof spec !== 'object' || spec === null) return undefined;
  const fields = spec as Record<string, unknown>;
  // Any value but absent or false: "true", 1 and the like are refused too, not left to the CRD.
  if (fields.inCluster !== undefined && fields.inCluster !== false) return 'spec.inCluster would reach the hub as the reconciler\'s own ServiceAccount';
  const ref = fields.kubeconfigSecretRef;
  if (typeof ref === 'object' && ref !== null && 'namespace' in ref) {
    const named = (ref as { namespace?: unknown }).namespace;
    if (named !== namespace) return `spec.kubeconfigSecretRef.namespace names ${JSON.stringify(named)}, outside the Cluster's namespace ${namespace || '(none)'}`;
  }
  return undefined;
}

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
export function driftCheck(run: ApplyRun, deps: ApplyDependencies): DriftCheck {
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

function wasApplied(run: ApplyRun, object: KubernetesManifest, inventory: Set<string>): boolean {
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
