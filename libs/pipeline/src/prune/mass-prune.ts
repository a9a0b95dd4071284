import { NotReadyError, findCondition, isReconcileFailure, Reason, type ObjectStatus } from '@tidemark/contracts';
import type { PruneHold } from '@tidemark/status-store';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { subjectOf } from '../observe/subject';

/**
 * checkMassPrune stops the prune of an object removed from Git when its revision removes more
 * than the allowed share of the source's objects on this cluster (big accidental deletes are the
 * top GitOps incident). The share is kept as a PruneHold, keyed by what it would remove: it is
 * decided again for an object the hold does not list, so a change that removes more at the same
 * revision (the Source's path, its deletion, a cluster relabelled out of a Placement rule) is a new
 * question, not covered by an earlier small prune. The object then waits (not-ready) until someone
 * confirms the hold on the dashboard.
 */
export async function checkMassPrune(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const holds = deps.pruneHolds;
  if (!holds) return;
  const { source, cluster, revision, objectKey } = run.job;
  let hold = await holds.get(source, cluster);
  if (hold?.revision !== revision || !hold.removed.includes(objectKey)) hold = await holds.decide(await decideHold(run, deps));
  if (hold.state !== 'waiting' || !hold.removed.includes(objectKey)) return;
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  throw new NotReadyError('PruneAwaitingConfirmation',
    `${subjectOf(run)} was removed from Git at ${revision.slice(0, 12)}, with ${hold.removed.length} of the ${hold.total} objects of source ${source} on cluster ${cluster} ` +
    `(${percent(hold.removed.length / hold.total)}), more than the ${percent(hold.threshold)} pruned at once without asking. Nothing is deleted until someone confirms this prune on the dashboard's Prunes page.`,
    60_000);
}

/** decideHold counts the source's objects on the cluster that the revision no longer declares there. */
async function decideHold(run: ReconcileRun, deps: PipelineDependencies): Promise<PruneHold> {
  const { source, cluster, revision } = run.job;
  const threshold = deps.options?.massPrune?.threshold ?? 0.5;
  const minimum = deps.options?.massPrune?.minimumObjects ?? 2;
  const records = (await deps.statusStore.list(cluster)).filter((record) => record.source === source && !isOrphaned(record));
  const removed: string[] = [];
  for (const record of records) {
    if (!(await declared(run, deps, record.objectKey))) removed.push(record.objectKey);
  }
  const over = removed.length >= minimum && removed.length / Math.max(1, records.length) > threshold;
  return { source, cluster, revision, removed, total: records.length, threshold, state: over ? 'waiting' : 'allowed', decidedAt: new Date().toISOString() };
}

async function declared(run: ReconcileRun, deps: PipelineDependencies, objectKey: string): Promise<boolean> {
  try {
    return (await deps.desired.readObject(run.job.source, run.job.revision, objectKey, run.job.cluster)) !== undefined;
  } catch (error) {
    // Unreadable is still declared: a broken file is not a request to delete.
    if (isReconcileFailure(error)) return true;
    throw error;
  }
}

function isOrphaned(record: ObjectStatus): boolean {
  return findCondition(record.conditions, 'Ready')?.reason === Reason.Orphaned;
}
