import { findCondition, readSourceStatus, Reason, type ObjectStatus, type RedisClient } from '@tidemark/contracts';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { jobsForRoute } from './fan-out';

export interface RetireContext {
  redis: RedisClient;
  statusStore: StatusStore;
  queues: ReconcileQueues;
  clusters: readonly string[];
}

/** BlockedPrune is an object a deleted source cannot prune yet: its last run failed, in these words. */
export interface BlockedPrune {
  cluster: string;
  objectKey: string;
  /** The failure as its status record says it (the API server's message for a refusal). */
  message: string;
}

/** RetireResult is how many objects a deleted source still has, and which of them failed to go. */
export interface RetireResult {
  left: number;
  /** The objects among `left` whose last run failed (not waiting): the Source says why it cannot finish. */
  blocked: BlockedPrune[];
}

/**
 * retireSource queues a prune job for every object a deleted source still has on any cluster, at
 * its last revision, and returns how many are left. The pipeline deletes each one only with proof
 * that Tidemark applied it for that source (the prune guards); an object a guard kept (orphaned)
 * no longer counts, so the Source can go once everything else is gone. An object whose last run
 * failed (its ServiceAccount may not read or delete it, say) is returned as blocked, with why.
 */
export async function retireSource(source: string, context: RetireContext): Promise<RetireResult> {
  const record = await readSourceStatus(context.redis, context.statusStore.keys, source);
  const revision = record.head ?? record.revision;
  const holders = await context.statusStore.holders(source, context.clusters);
  let left = 0;
  const blocked: BlockedPrune[] = [];
  const jobs = [];
  for (const [objectKey, known] of holders) {
    const held: string[] = [];
    for (const cluster of known) {
      const status = await context.statusStore.get(cluster, objectKey);
      if (findCondition(status?.conditions, 'Ready')?.reason === Reason.Orphaned) continue;
      held.push(cluster);
      const failure = failureOf(status);
      if (failure) blocked.push({ cluster, objectKey, message: failure });
    }
    left += held.length;
    if (revision) jobs.push(...jobsForRoute({ source, revision, objectKey, removed: true, targets: [], known: held, reason: 'resync' }));
  }
  if (jobs.length > 0) await context.queues.enqueueAll(jobs);
  return { left, blocked };
}

/** failureOf is the message of a record's failed last run (Stalled's, else Ready's); undefined while it waits or is fine. */
function failureOf(status: ObjectStatus | undefined): string | undefined {
  if (!status?.failure || status.failure.category === 'waiting') return undefined;
  const stalled = findCondition(status.conditions, 'Stalled');
  if (stalled?.status === 'True') return stalled.message;
  return findCondition(status.conditions, 'Ready')?.message ?? status.failure.code;
}
