// RedisLease against the rig's real Redis: one holder, owner-checked renew and release, expiry.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RedisLease } from '@tidemark/contracts';
import { RedisFixture } from './redis-fixture';

const redis = new RedisFixture(inject('redisUrl'));
afterAll(() => redis.cleanup());

describe('RedisLease', () => {
  it('lets exactly one of many racing replicas take a lease', async () => {
    const key = `${redis.prefix}:lease:race`;
    const leases = Array.from({ length: 8 }, (_, index) => new RedisLease(redis.connect(), key, `replica-${index}`, 5_000));
    const won = await Promise.all(leases.map((lease) => lease.acquire()));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await leases[0]!.holder()).toBe(`replica-${won.indexOf(true)}`);
  });

  it('renews only for its owner and releases only its own lease', async () => {
    const key = `${redis.prefix}:lease:owner`;
    const connection = redis.connect();
    const mine = new RedisLease(connection, key, 'mine', 1_000);
    const theirs = new RedisLease(connection, key, 'theirs', 60_000);
    expect(await mine.acquire()).toBe(true);
    expect(await theirs.renew()).toBe(false);
    expect(await theirs.release()).toBe(false);
    expect(await connection.pttl(key)).toBeLessThanOrEqual(1_000);
    expect(await mine.acquire()).toBe(true);
    expect(await mine.release()).toBe(true);
    expect(await connection.exists(key)).toBe(0);
  });

  it('keeps a renewed lease alive past its time, and lets another take it once renewal stops', async () => {
    const key = `${redis.prefix}:lease:expiry`;
    const leader = new RedisLease(redis.connect(), key, 'leader', 300);
    const follower = new RedisLease(redis.connect(), key, 'follower', 300);
    expect(await leader.acquire()).toBe(true);
    for (let round = 0; round < 4; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await leader.renew()).toBe(true);
      expect(await follower.acquire()).toBe(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await follower.acquire()).toBe(true);
    expect(await leader.renew()).toBe(false);
  });
});
