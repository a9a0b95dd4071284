import { findCondition, readSourceStatus, Reason } from '@tidemark/contracts';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { jobsForRoute } from './fan-out';
import type { RedisClient } from '@tidemark/contracts';

export interface RetireContext {
  redis: RedisClient;
  statusStore: StatusStore;
  queues: ReconcileQueues;
  clusters: readonly string[];
}

/**
 * retireSource queues a prune job for every object a deleted source still has on any cluster, at
 * its last revision, and returns how many are left. The pipeline deletes each one only with proof
 * that Tidemark applied it for that source (the prune guards); an object a guard kept (orphaned)
 * no longer counts, so the Source can go once everything else is gone.
 */
export async function retireSource(source: string, context: RetireContext): Promise<number> {
  const record = await readSourceStatus(context.redis, context.statusStore.keys, source);
  const revision = record.head ?? record.revision;
  const holders = await context.statusStore.holders(source, context.clusters);
  let left = 0;
  const jobs = [];
  for (const [objectKey, known] of holders) {
    const held: string[] = [];
    for (const cluster of known) {
      const status = await context.statusStore.get(cluster, objectKey);
      if (findCondition(status?.conditions, 'Ready')?.reason !== Reason.Orphaned) held.push(cluster);
    }
    left += held.length;
    if (revision) jobs.push(...jobsForRoute({ source, revision, objectKey, removed: true, targets: [], known: held, reason: 'resync' }));
  }
  if (jobs.length > 0) await context.queues.enqueueAll(jobs);
  return left;
}
