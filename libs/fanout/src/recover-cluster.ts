import { readSourceStatus, revisionFor, type JobReason, type SourceStatus } from '@tidemark/contracts';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import type { RedisClient } from '@tidemark/contracts';

/**
 * requeueCluster re-enqueues every object a cluster holds, at its source's newest revision,
 * once the cluster is back: their status still says they wait for it. A cluster leaving the
 * registry (a Cluster deleted with prune) passes reason `git-removed`: its objects left their
 * placement there, and each run prunes at once rather than at its resync.
 */
export async function requeueCluster(cluster: string, deps: { redis: RedisClient; statusStore: StatusStore; queues: ReconcileQueues }, reason: Extract<JobReason, 'resync' | 'git-removed'> = 'resync'): Promise<number> {
  const sources = new Map<string, SourceStatus>();
  const jobs = [];
  for (const record of await deps.statusStore.list(cluster)) {
    if (!sources.has(record.source)) sources.set(record.source, await readSourceStatus(deps.redis, deps.statusStore.keys, record.source));
    const revision = revisionFor(sources.get(record.source) ?? {}, record, record.source);
    if (revision) jobs.push({ source: record.source, revision, cluster, objectKey: record.objectKey, reason });
  }
  const counts = await deps.queues.enqueueAll(jobs);
  return counts.queued + counts.merged;
}
