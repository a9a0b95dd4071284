import { getObject, removeFinalizer, toReconcileFailure } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { DeletionResult, PruneResult, ReconcileRun } from '../run';
import { addPruned, judgePrune, previousInventory, pruneEntries, pruneLiveObject } from '../prune/prune';
import type { KeptObject } from '../prune/guards';
import { cleanupFinalizer, inventoryEntry } from '../render/tracking';
import { subjectOf } from '../observe/subject';
import { checkMassPrune } from '../prune/mass-prune';

/**
 * deletionStage handles an object removed from Git, or a CR deleted by hand (deletionTimestamp
 * set): it prunes what the object applied and drops the finalizer. Removed from Git, the object
 * itself goes too; deleted by hand while still in Git, the next run recreates it. Every delete
 * passes the prune guards; an object a guard keeps is orphaned: left in the cluster, with the
 * reason in its status record and an Event. A CR that is kept keeps what it rendered too.
 */
export async function deletionStage(run: ReconcileRun, deps: PipelineDependencies): Promise<DeletionResult> {
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

async function prune(run: ReconcileRun, deps: PipelineDependencies, removedFromGit: boolean): Promise<PruneResult> {
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
async function keptItself(run: ReconcileRun, deps: PipelineDependencies, live: KubernetesManifest): Promise<KeptObject | undefined> {
  const verdict = await judgePrune(run, deps, inventoryEntry(live), live);
  if (verdict.allowed) return undefined;
  deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, guard: verdict.guard, reason: verdict.reason }, 'removed from Git but orphaned, not deleted');
  return { entry: inventoryEntry(live), guard: verdict.guard ?? 'unknown', reason: verdict.reason };
}

/** refreshed is the CR as it is after its finalizer went. */
async function refreshed(run: ReconcileRun, live: KubernetesManifest): Promise<KubernetesManifest> {
  return (await getObject(run.connection, { apiVersion: live.apiVersion, kind: live.kind, namespace: live.metadata.namespace, name: live.metadata.name })) ?? live;
}
