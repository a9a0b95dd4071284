import { deleteObject, removeFinalizer, toReconcileFailure } from '@tidemark/cluster';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { deletedEntry, previousInventory, pruneEntries } from './prune';
import { appliedByTidemark, cleanupFinalizer } from './tracking';
import { subjectOf } from './subject';

/**
 * deletionStage handles an object removed from Git, or a CR deleted by hand (deletionTimestamp
 * set): it prunes what the object applied and drops the finalizer. Removed from Git, the object
 * itself goes too; deleted by hand while still in Git, the next run recreates it.
 */
export async function deletionStage(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  run.stage = 'deletion';
  const removedFromGit = !run.desired;
  const deletedByHand = Boolean(run.plugin && run.live?.metadata.deletionTimestamp);
  if (!removedFromGit && !deletedByHand) return;
  try {
    run.pruned = await pruneEntries(run.connection, previousInventory(run));
    if (run.live && run.plugin) {
      await removeFinalizer(run.connection, run.live, cleanupFinalizer);
      if (removedFromGit) await deleteCustomResource(run);
    } else if (run.live && removedFromGit) {
      await deletePlainObject(run, deps);
    }
  } catch (error) {
    throw toReconcileFailure(error, `prune ${subjectOf(run)}`);
  }
  run.deleted = true;
}

async function deleteCustomResource(run: ReconcileRun): Promise<void> {
  const live = run.live!;
  await deleteObject(run.connection, { group: run.ref.group, kind: live.kind, namespace: live.metadata.namespace ?? '', name: live.metadata.name });
  run.pruned.push(deletedEntry({ apiVersion: live.apiVersion, kind: live.kind, namespace: live.metadata.namespace ?? '', name: live.metadata.name }));
}

async function deletePlainObject(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const live = run.live!;
  // Only what Tidemark applied is Tidemark's to delete.
  if (!appliedByTidemark(live, run.connection.fieldManager)) {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster }, 'object left Git but was not applied by Tidemark; leaving it in place');
    return;
  }
  const result = await deleteObject(run.connection, { group: run.ref.group, kind: live.kind, namespace: live.metadata.namespace ?? '', name: live.metadata.name });
  if (result === 'deleted') run.pruned.push(deletedEntry({ apiVersion: live.apiVersion, kind: live.kind, namespace: live.metadata.namespace ?? '', name: live.metadata.name }));
}
