import type { ObjectStatus, ReconcileJob } from '@tidemark/contracts';
import type { PollResult } from '@tidemark/git-source';

/**
 * jobsForPoll turns a poll's changes into one job per (object, cluster). Every change is sent
 * to every target cluster; the job names the object and the revision, never its body.
 */
export function jobsForPoll(result: PollResult, clusters: readonly string[]): ReconcileJob[] {
  const jobs: ReconcileJob[] = [];
  for (const change of result.changes) {
    for (const cluster of clusters) {
      jobs.push({
        source: result.source,
        revision: result.revision,
        cluster,
        objectKey: change.objectKey,
        reason: change.change === 'removed' ? 'git-removed' : 'git-change',
      });
    }
  }
  return jobs;
}

/** jobsForResync re-enqueues every object at a revision, so lost queue state is rebuilt from Git. */
export function jobsForResync(source: string, revision: string, objectKeys: readonly string[], clusters: readonly string[]): ReconcileJob[] {
  return objectKeys.flatMap((objectKey) => clusters.map((cluster) => ({ source, revision, cluster, objectKey, reason: 'resync' as const })));
}

/**
 * jobsForVanished covers a poll without a previous revision (the first one, or after history
 * was rewritten): it lists every object as added and cannot list removals, so objects the
 * status store knows from this source that Git no longer has are enqueued for pruning.
 */
export function jobsForVanished(result: PollResult, known: readonly ObjectStatus[]): ReconcileJob[] {
  if (result.previousRevision) return [];
  const present = new Set(result.changes.map((change) => change.objectKey));
  return known
    .filter((record) => record.source === result.source && !present.has(record.objectKey))
    .map((record) => ({ source: result.source, revision: result.revision, cluster: record.cluster, objectKey: record.objectKey, reason: 'git-removed' as const }));
}
