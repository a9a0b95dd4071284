import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * markOlderRelease says, for `ttlMs`, that a release of schema 2 or older may still run beside
 * this one (the key mover's passes renew it while they find its writes; it lapses after).
 */
export async function markOlderRelease(redis: RedisClient, keys: RecordKeys, ttlMs: number): Promise<void> {
  if (!keys.hashTagged) return;
  await redis.set(keys.olderRelease, new Date().toISOString(), 'PX', Math.max(1, Math.round(ttlMs)));
}

/**
 * olderReleaseReadsShared says whether a writer should also write the shared name an older
 * release reads a cluster's freeze or prune hold under: only with per-cluster tags (else the
 * names are the same) and while the mark is fresh. One read; no read without a hash tag.
 */
export async function olderReleaseReadsShared(redis: RedisClient, keys: RecordKeys): Promise<boolean> {
  if (!keys.hashTagged) return false;
  return (await redis.exists(keys.olderRelease)) === 1;
}
