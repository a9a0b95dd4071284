import { describe } from '@tidemark/cluster';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { recordEvents } from './stage-status';

/** recordDeletion updates the store after the deletion stage, and emits Pruned events. */
export async function recordDeletion(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const about = run.live;
  if (about) {
    const events = run.pruned.map((entry) => ({ type: 'Normal' as const, reason: 'Pruned', message: `${describe({ kind: entry.kind, metadata: entry })} pruned: ${run.desired ? 'its owner was deleted by hand' : 'it was removed from Git'}` }));
    await recordEvents(run, deps, about, events);
  }
  if (!run.desired) {
    await deps.statusStore.delete(run.job.cluster, run.job.objectKey);
    return;
  }
  await deps.statusStore.appendHistory(run.job.cluster, run.job.objectKey, {
    revision: run.job.revision, startedAt: run.startedAt.toISOString(), durationMs: Date.now() - run.startedAt.getTime(),
    result: 'pruned', stage: 'deletion', message: `Deleted in the cluster by hand; pruned ${run.pruned.length} objects and will recreate it from Git.`,
  });
}
