import type { ReconcileJob } from '@tidemark/contracts';
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
