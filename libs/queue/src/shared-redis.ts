import { claimRedisSchema, RecordKeys, redisSchemaVersion, runnable, type Logger, type RedisClient, type Runnable } from '@tidemark/contracts';
import { assertRedisSafe } from './assert-redis-safe';
import { closeRedis, endWhenGone, type RedisConnection } from './connection';
import { probeRedis } from './probe-redis';
import { redisPrefix } from './queue-names';
import { needsHashTag, openRedisClient, redisConnectionFor, type RedisEndpoint } from './redis-endpoint';

/** SharedRedisOptions: where Redis is, the deployment's key prefix, and who claims the record schema. */
export interface SharedRedisOptions {
  endpoint: RedisEndpoint;
  /** The deployment's prefix (`tidemark`); on a Redis Cluster the records' keys carry it as a hash tag. */
  prefix: string;
  allowEviction: boolean;
  /** Who claims the record schema, as the schema record shows it. */
  writer: string;
  log: Logger;
  /** Checks the server's settings before the main client opens. @defaultValue assertRedisSafe, its warnings logged */
  checkSettings?(connection: RedisConnection): Promise<void>;
  /** Claims the record schema, giving the version found before. @defaultValue claimRedisSchema, by `writer` */
  claim?(redis: RedisClient, keys: RecordKeys): Promise<{ previous: number }>;
}

/** SharedRedis is the process's main Redis client and how every other part names and reaches Redis. */
export interface SharedRedis {
  redis: RedisClient;
  connection: RedisConnection;
  hashTag: boolean;
  /** The records' prefix: `{prefix}` on a Redis Cluster, else the prefix. */
  recordPrefix: string;
  keys: RecordKeys;
  /** The schema version the records had before this start (0: none). */
  previousSchema: number;
  stop(): Promise<void>;
}

/**
 * sharedRedis is the first part of a process that uses Redis. Start makes one bounded attempt
 * before any client that reconnects forever (a refused certificate or an unreachable Redis fails
 * start-up with a clear error instead of a reconnect loop), checks Redis is safe for records, opens
 * the main client and refuses records a newer release wrote (a downgrade), else claims this
 * release's schema. Stop closes the client.
 */
export function sharedRedis(options: SharedRedisOptions): Runnable<SharedRedis> {
  return runnable('redis', async () => {
    const { endpoint, log } = options;
    // A URL, a Sentinel group or a Redis Cluster; on a cluster every key carries the hash tag {prefix}.
    const connection = redisConnectionFor(endpoint);
    const hashTag = needsHashTag(endpoint);
    const recordPrefix = redisPrefix({ prefix: options.prefix, hashTag });
    await probeRedis(endpoint);
    await (options.checkSettings ?? (async () => {
      const safety = await assertRedisSafe(connection, { allowEviction: options.allowEviction });
      for (const warning of safety.warnings) log.warn({}, warning);
    }))(connection);
    const redis = openRedisClient(endpoint, { maxRetriesPerRequest: null });
    redis.on('error', (error: Error) => log.warn({ err: error.message }, 'redis connection error; reconnecting'));
    const keys = new RecordKeys(recordPrefix);
    try {
      const schema = options.claim ? await options.claim(redis, keys) : await claimRedisSchema(redis, keys, options.writer);
      if (!options.claim && schema.previous !== redisSchemaVersion) log.info({ previous: schema.previous || 'none', now: redisSchemaVersion }, 'Redis record schema raised');
      return { redis, connection, hashTag, recordPrefix, keys, previousSchema: schema.previous, stop: () => closeRedis(redis) };
    } catch (error) {
      await closeRedis(redis);
      throw error;
    }
  });
}

/**
 * redisGoneGuard is the last part to start and so the first to stop: the main client waits for
 * Redis forever while running (maxRetriesPerRequest null); a stop must not, when Redis has gone
 * (a terminal's Ctrl-C reaches redis-server too).
 */
export function redisGoneGuard(redis: RedisClient): Runnable {
  return runnable('redis gone guard', () => () => endWhenGone(redis));
}
