import { closeRedis, openRedis, type RedisConnection } from './connection';
import { UnsafeRedisError } from './errors/unsafe-redis-error';

/** AssertRedisSafeOptions relax the start-up check. */
export interface AssertRedisSafeOptions {
  /**
   * Accept a Redis whose maxmemory-policy may evict keys. Only for throw-away setups: an
   * evicted job or lock key loses work silently or lets two workers run one object.
   * @defaultValue false
   */
  allowEviction?: boolean;
}

/** RedisSafety is what the check found, for a start-up log line. */
export interface RedisSafety {
  maxmemoryPolicy: string;
  appendOnly: boolean;
  /** Sentences worth logging: a risk that was allowed, or missing persistence. */
  warnings: string[];
}

/**
 * assertRedisSafe refuses a Redis that may evict keys (maxmemory-policy other than
 * noeviction), unless allowed, and says why. Missing AOF persistence is reported as a warning:
 * the periodic resync from Git rebuilds lost work, so it is not fatal.
 */
export async function assertRedisSafe(connection: RedisConnection, options: AssertRedisSafeOptions = {}): Promise<RedisSafety> {
  const client = openRedis(connection, 'producer');
  client.on('error', () => undefined);
  try {
    const policy = configValue(await client.call('CONFIG', 'GET', 'maxmemory-policy')) ?? 'unknown';
    const appendOnly = configValue(await client.call('CONFIG', 'GET', 'appendonly')) === 'yes';
    const warnings: string[] = [];
    if (policy !== 'noeviction') {
      const why = `Redis runs with maxmemory-policy ${policy}, so under memory pressure it may evict queue keys: jobs would vanish without error and a deleted lock would let two workers reconcile one object at once.`;
      if (!options.allowEviction) {
        throw new UnsafeRedisError(`${why} Set \`maxmemory-policy noeviction\` in redis.conf (or CONFIG SET maxmemory-policy noeviction), or allow eviction explicitly if this Redis is disposable.`);
      }
      warnings.push(`${why} Allowed by configuration.`);
    }
    if (!appendOnly) warnings.push('Redis runs without AOF (appendonly no): a restart loses queued work until the next full resync from Git.');
    return { maxmemoryPolicy: policy, appendOnly, warnings };
  } finally {
    await closeRedis(client);
  }
}

/** configValue reads the value out of a CONFIG GET reply ([name, value]). */
function configValue(reply: unknown): string | undefined {
  return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
}
