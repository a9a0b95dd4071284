import type { Redis } from 'ioredis';
import { readSourceStatus } from '@tidemark/poller';
import type { StatusStore } from '@tidemark/status-store';

/**
 * latestRevision is the source's newest fetched revision, so a woken object is compared with Git
 * as it is now (an object just pruned, or moved off a cluster, stays pruned), else the one it was
 * last reconciled at.
 */
export async function latestRevision(options: { redis: Redis; keyPrefix: string; statusStore: StatusStore }, cluster: string, owner: { source: string; objectKey: string }): Promise<string | undefined> {
  const { head, revision } = await readSourceStatus(options.redis, options.keyPrefix, owner.source);
  if (head ?? revision) return head ?? revision;
  const record = await options.statusStore.get(cluster, owner.objectKey);
  return record?.source === owner.source ? record.lastAttemptedRevision : undefined;
}
