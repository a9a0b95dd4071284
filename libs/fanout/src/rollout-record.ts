import type { RecordKeys, RedisClient, RolloutRecord } from '@tidemark/contracts';

// The writer of the record this library owns; its format and parser live in contracts.

/** writeRolloutRecord stores a source's rollout record; only the rollout driver (its one writer) calls it. */
export async function writeRolloutRecord(redis: RedisClient, keys: RecordKeys, record: RolloutRecord): Promise<void> {
  await redis.multi().set(keys.rollout(record.source), JSON.stringify(record)).sadd(keys.rollouts, record.source).exec();
}
