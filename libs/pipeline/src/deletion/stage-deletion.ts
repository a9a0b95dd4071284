import { getObject, removeFinalizer, toReconcileFailure, type EventInput } from '@tidemark/cluster';
import { findCondition, Reason, ConditionType, setCondition, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import { prunedBy, type DeletionResult, type PruneResult, type ReconcileRun } from '../run';
import { addPruned, checkMassPrune, judgePrune, previousInventory, pruneEntries, pruneLiveObject, type PruneDependencies, type PruneRun } from '../prune/stage-prune';
import type { KeptObject } from '../prune/guards';
import { cleanupFinalizer, inventoryEntry } from '../render/tracking';
import { subjectOf } from '../observe/subject';

/** DeletionRun is the part of the run the deletion stage reads, and what it hands prune. */
export type DeletionRun = PruneRun & Pick<ReconcileRun, 'plugin' | 'deletion'>;

/** DeletionDependencies is what the deletion stage reads: prune's own. */
export type DeletionDependencies = PruneDependencies;

/**
 * deletionStage handles an object removed from Git, or a CR deleted by hand (deletionTimestamp
 * set): it prunes what the object applied and drops the finalizer. Removed from Git, the object
 * itself goes too; deleted by hand while still in Git, the next run recreates it. Every delete
 * passes the prune guards; an object a guard keeps is orphaned: left in the cluster, with the
 * reason in its status record and an Event. A CR that is kept keeps what it rendered too.
 */
export async function deletionStage(run: DeletionRun, deps: DeletionDependencies): Promise<DeletionResult> {
  run.stage = 'deletion';
  const removedFromGit = !run.desired;
  const deletedByHand = Boolean(run.plugin && run.live?.metadata.deletionTimestamp);
  if (!removedFromGit && !deletedByHand) return { action: 'none' };
  // Outside the try: waiting for confirmation is not a prune failure.
  if (removedFromGit && run.live) await checkMassPrune(run, deps);
  try {
    const orphaned = removedFromGit && run.live ? await keptItself(run, deps, run.live) : undefined;
    if (orphaned) {
      if (run.plugin) await removeFinalizer(run.connection, run.live!, cleanupFinalizer);
      return { action: 'orphaned', orphaned };
    }
    return { action: 'pruned', pruned: await prune(run, deps, removedFromGit) };
  } catch (error) {
    throw toReconcileFailure(error, `prune ${subjectOf(run)}`);
  }
}

async function prune(run: DeletionRun, deps: DeletionDependencies, removedFromGit: boolean): Promise<PruneResult> {
  const pruned = await pruneEntries(run, deps, previousInventory(run));
  if (run.live && run.plugin) {
    await removeFinalizer(run.connection, run.live, cleanupFinalizer);
    if (removedFromGit) addPruned(pruned, await pruneLiveObject(run, deps, await refreshed(run, run.live)));
  } else if (run.live && removedFromGit) {
    addPruned(pruned, await pruneLiveObject(run, deps, run.live));
  }
  return pruned;
}

/** keptItself asks the guards about the removed object itself first: kept, it is orphaned with everything it owns. */
async function keptItself(run: DeletionRun, deps: DeletionDependencies, live: KubernetesManifest): Promise<KeptObject | undefined> {
  const verdict = await judgePrune(run, deps, inventoryEntry(live), live);
  if (verdict.allowed) return undefined;
  deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, guard: verdict.guard, reason: verdict.reason }, 'removed from Git but orphaned, not deleted');
  return { entry: inventoryEntry(live), guard: verdict.guard ?? 'unknown', reason: verdict.reason };
}

/** refreshed is the CR as it is after its finalizer went. */
async function refreshed(run: DeletionRun, live: KubernetesManifest): Promise<KubernetesManifest> {
  return (await getObject(run.connection, { apiVersion: live.apiVersion, kind: live.kind, namespace: live.metadata.namespace, name: live.metadata.name })) ?? live;
}

/** deletionEvents: a Pruned event per object the deletion stage pruned, and the orphans; finalize emits them. */
export function deletionEvents(run: DeletionRun): EventInput[] {
  if (!run.live) return [];
  const deletion = run.deletion;
  const pruned = prunedBy(deletion);
  const events: EventInput[] = pruned.deleted.map((entry) => ({ type: 'Normal' as const, reason: 'Pruned', message: `${entry.subject} pruned: ${run.desired ? 'its owner was deleted by hand' : 'it was removed from Git'}` }));
  // An orphan is said once, when it happens, not on every run that finds it again.
  const alreadyOrphaned = findCondition(run.previous?.conditions, 'Ready')?.reason === Reason.Orphaned;
  if (deletion?.action === 'orphaned' && !alreadyOrphaned) events.push({ type: 'Warning', reason: Reason.Orphaned, message: `Removed from Git, but orphaned, not deleted: ${deletion.orphaned.reason}` });
  events.push(...keptEvents(pruned.kept));
  return events;
}

/** keptEvents: one Warning per object a prune guard kept, with the reason. */
export function keptEvents(kept: readonly KeptObject[]): EventInput[] {
  return kept.map((kept) => ({ type: 'Warning' as const, reason: Reason.Orphaned, message: `Not pruned: ${kept.reason}` }));
}

/**
 * orphanedRecord is the status record of an object removed from Git that a prune guard kept:
 * it stays listed, with Ready=Unknown and the reason, until it is deleted by hand (the next run
 * then finds nothing and forgets it) or declared in Git again.
 */
export function orphanedRecord(run: DeletionRun, kept: KeptObject, now: Date): ObjectStatus {
  const previous = run.previous;
  const generation = run.live?.metadata.generation ?? previous?.observedGeneration ?? 0;
  const message = `Removed from Git at revision ${run.job.revision.slice(0, 12)}, but orphaned (left in the cluster, no longer managed): ${kept.reason}`;
  let conditions = setCondition(previous?.conditions ?? [], { type: ConditionType.Ready, status: 'Unknown', observedGeneration: generation, reason: Reason.Orphaned, message }, now);
  conditions = setCondition(conditions, { type: ConditionType.Reconciling, status: 'False', observedGeneration: generation, reason: Reason.Orphaned, message: 'Tidemark no longer reconciles it.' }, now);
  conditions = setCondition(conditions, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: Reason.Orphaned, message: 'Not stalled.' }, now);
  return {
    ...(previous ?? { inventory: [] }),
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    apiVersion: run.live?.apiVersion ?? previous?.apiVersion ?? kept.entry.apiVersion,
    kind: run.ref.kind,
    namespace: kept.entry.namespace,
    name: run.ref.name,
    lastAttemptedRevision: run.job.revision,
    conditions: [conditions.find((condition) => condition.type === ConditionType.Ready)!, ...conditions.filter((condition) => condition.type !== ConditionType.Ready)],
    warnings: [message],
    updatedAt: now.toISOString(),
  };
}
