import { claimRedisSchema, expectRedisSchema, redisSchemaVersion, type Logger, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { assertRedisSafe, type redisConnectionFor } from '@tidemark/queue';
import { ClusterKeysMover } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';
import { refuseUntaggedRecords, untaggedAgentsWarning } from './redis-key-tags';

/**
 * checkRedisSettings warns about (or refuses) a Redis that may lose queued work. The hub checks;
 * an agent's Redis user may not read the server's settings (CONFIG is refused to it).
 */
export async function checkRedisSettings(config: ReconcilerConfig, connection: ReturnType<typeof redisConnectionFor>, log: Logger): Promise<void> {
  if (config.role === 'agent') return;
  const safety = await assertRedisSafe(connection, { allowEviction: config.allowEviction });
  for (const warning of safety.warnings) log.warn({}, warning);
}

/**
 * claimRecords claims this release's record schema (refusing a downgrade) and starts moving an
 * older release's records to their clusters' hash tags (ClusterKeysMover), returning the schema
 * found before and the mover (stop it). An agent with per-cluster tags, whose Redis user holds only
 * its own keys, reads the hub's claim instead and moves nothing.
 */
export async function claimRecords(config: ReconcilerConfig, redis: RedisClient, keys: RecordKeys, log: Logger, keyMoveIntervalMs: number): Promise<{ previous: number; keyMover: ClusterKeysMover }> {
  const agent = config.role === 'agent';
  if (!agent && keys.hashTagged && !('cluster' in config.redis)) await refuseUntaggedRecords(redis, keys, config.redisPrefix);
  const untagged = agent ? undefined : untaggedAgentsWarning(config.clusters, keys.hashTagged);
  if (untagged) log.warn({}, untagged);
  const schema = agent && keys.hashTagged ? await expectRedisSchema(redis, keys) : await claimRedisSchema(redis, keys, `reconciler ${process.pid}`);
  if (schema.previous !== redisSchemaVersion) log.info({ previous: schema.previous || 'none', now: redisSchemaVersion }, 'Redis record schema raised');
  const keyMover = new ClusterKeysMover({ redis, keys, log, previousSchema: agent ? redisSchemaVersion : schema.previous, intervalMs: keyMoveIntervalMs });
  if (!agent) await keyMover.start();
  return { previous: schema.previous, keyMover };
}
