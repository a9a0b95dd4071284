import type { Redis } from 'ioredis';
import { readSourceStatus } from '@tidemark/poller';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';

/**
 * requeueCluster re-enqueues every object a cluster holds, at its source's newest revision,
 * once the cluster is back: their status still says they wait for it.
 */
export async function requeueCluster(cluster: string, deps: { redis: Redis; keyPrefix: string; statusStore: StatusStore; queues: ReconcileQueues }): Promise<number> {
  const revisions = new Map<string, string | undefined>();
  const jobs = [];
  for (const record of await deps.statusStore.list(cluster)) {
    if (!revisions.has(record.source)) {
      const status = await readSourceStatus(deps.redis, deps.keyPrefix, record.source);
      revisions.set(record.source, status.head ?? status.revision);
    }
    const revision = revisions.get(record.source) ?? record.lastAttemptedRevision;
    if (revision) jobs.push({ source: record.source, revision, cluster, objectKey: record.objectKey, reason: 'resync' as const });
  }
  const counts = await deps.queues.enqueueAll(jobs);
  return counts.queued + counts.merged;
}
