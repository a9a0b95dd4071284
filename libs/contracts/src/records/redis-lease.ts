import type { RedisClient } from './redis-client';

// Extend only while we still hold it: a lease that expired and was taken is not ours to renew.
const renewScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const releaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * RedisLease elects one holder of something across replicas (a source's poller, a cluster's
 * health checker or watcher): a Redis key holding the owner's id with an expiry. Acquire is
 * SET NX PX; renew and release compare the owner first, in Lua, so a replica never extends or
 * deletes a lease another one has taken over.
 */
export class RedisLease {
  constructor(private readonly redis: RedisClient, readonly key: string, readonly owner: string, readonly ttlMs: number) {
    if (!Number.isInteger(ttlMs) || ttlMs < 100) throw new Error(`the lease time must be an integer of at least 100 ms, got ${ttlMs}`);
  }

  /** acquire takes the lease when it is free, or renews it when this owner already holds it. */
  async acquire(): Promise<boolean> {
    const taken = await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX');
    return taken === 'OK' || this.renew();
  }

  async renew(): Promise<boolean> {
    return (await this.redis.eval(renewScript, 1, this.key, this.owner, this.ttlMs)) === 1;
  }

  async release(): Promise<boolean> {
    return (await this.redis.eval(releaseScript, 1, this.key, this.owner)) === 1;
  }

  async holder(): Promise<string | null> {
    return this.redis.get(this.key);
  }
}
