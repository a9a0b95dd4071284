import { applyChangeSet, applyWithChangeSet, toReconcileFailure, type ChangeSetEntry, type ChangeSetOptions, type KnownState } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import { driftCheck } from './drift-check';
import type { ReconcileRun } from '../run';
import type { AppliedObjects } from './stage-results';
import { customResourceToApply, validationFailure, inventoryEntry, inventoryId, type ValidatedResource } from '../render/stage-render';
import { subjectOf } from '../observe/subject';
import { checkRenderedAllowed, identityPreflight } from '../fetch/tenancy';
import { checkClusterObjects } from './cluster-object-guard';
import { appliedBefore, appliedVersionOf, leftByLastApply } from './applied-versions';
import { cachedLive } from '../fetch/stage-fetch';
import { ensurePrevention } from '../gates/stage-gates';
import { noSpan, type TraceSpan } from '@tidemark/tracing';
import { tracedApplies } from '../observe/run-trace';

/**
 * applyStage applies the CR (for a kind) and the rendered objects with server-side apply in
 * dependency order, healing or reporting drift as each object's policy says. The CR goes first
 * and is neither read nor dry-run again: fetch read it and validate dry-ran it, or, when it does
 * not exist yet, its creation here is its validation (a refusal is ValidationFailed, and nothing
 * it renders is applied). An object whose last apply left it at the version it still has is not
 * dry-run at all: unchanged in Git, it is not written either (appliedBefore); changed, it is
 * applied at once (leftByLastApply).
 */
export async function applyStage(run: ReconcileRun, deps: PipelineDependencies, rendered: KubernetesManifest[], validated?: ValidatedResource, span: TraceSpan = noSpan): Promise<AppliedObjects> {
  run.stage = 'apply';
  const drift = driftCheck(run, deps);
  const cached = cachedLive(run, deps);
  const options: ChangeSetOptions = { ...drift.options, appliedBefore: appliedBefore(run.previous), leftByLastApply: leftByLastApply(run.previous), known: plainManifestLive(run), ...(cached ? { cached } : {}), ...tracedApplies(span) };
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
        const version = appliedVersionOf(object, entry);
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
function plainManifestLive(run: ReconcileRun): ((object: KubernetesManifest) => KnownState | undefined) | undefined {
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
