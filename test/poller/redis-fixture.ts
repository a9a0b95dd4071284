import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** RedisFixture hands out connections to the rig's Redis under one random key prefix, and cleans both up. */
export class RedisFixture {
  readonly prefix = `test-${randomUUID().slice(0, 8)}`;
  private readonly connections: Redis[] = [];

  constructor(private readonly url: string) {}

  connect(): Redis {
    const redis = new Redis(this.url, { maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on('error', () => undefined);
    this.connections.push(redis);
    return redis;
  }

  async cleanup(): Promise<void> {
    const admin = this.connect();
    const keys = await admin.keys(`${this.prefix}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await Promise.all(this.connections.map((redis) => (redis.status === 'end' ? undefined : redis.quit().catch(() => redis.disconnect()))));
  }
}
