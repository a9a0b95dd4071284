// CommitStatusRecord on the rig's real Redis: which replica posts which state of a commit on a
// cluster. Two records stand for two replicas sharing one Redis.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RecordKeys } from '@tidemark/contracts';
import { CommitStatusRecord } from '@tidemark/git-host';

const keys = new RecordKeys(`csr-${randomUUID().slice(0, 8)}`);
const sha = 'a'.repeat(40);
let redis: Redis;
let replicaA: CommitStatusRecord;
let replicaB: CommitStatusRecord;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
  replicaA = new CommitStatusRecord(redis, keys);
  replicaB = new CommitStatusRecord(redis, keys);
});
afterAll(async () => {
  const found = await redis.keys(`${keys.prefix}:*`);
  if (found.length > 0) await redis.del(...found);
  redis.disconnect();
});

describe('CommitStatusRecord', () => {
  it('claims pending once, and success once when every object is done, whichever replica ran them', async () => {
    const [first, second] = await Promise.all([
      replicaA.pickedUp({ source: 'shop', revision: sha, cluster: 'east' }, ['a', 'b', 'c']),
      replicaB.pickedUp({ source: 'shop', revision: sha, cluster: 'east' }, ['a', 'b', 'c']),
    ]);
    expect([first, second].filter(Boolean)).toEqual([{ state: 'pending', objects: 3 }]);
    expect(await replicaA.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'a', 'done')).toBeUndefined();
    expect(await replicaB.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'b', 'pending')).toBeUndefined();
    expect(await replicaB.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'b', 'done')).toBeUndefined();
    // The same object's run twice (a retry, two replicas) counts once.
    const last = await Promise.all([replicaA.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'c', 'done'), replicaB.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'c', 'done')]);
    expect(last.filter(Boolean)).toEqual([{ state: 'success', objects: 3 }]);
    expect(await replicaA.ran({ source: 'shop', revision: sha, cluster: 'east' }, 'c', 'done')).toBeUndefined();
    expect(await replicaA.finished({ source: 'shop', revision: sha, cluster: 'east' })).toBe(true);
  });

  it('claims failure at the first failed object, with the first reason, and success later if the failure heals', async () => {
    await replicaA.pickedUp({ source: 'shop', revision: sha, cluster: 'west' }, ['a', 'b']);
    expect(await replicaA.finished({ source: 'shop', revision: sha, cluster: 'west' })).toBe(false);
    expect(await replicaA.ran({ source: 'shop', revision: sha, cluster: 'west' }, 'a', 'failed', 'ValidationFailed: spec.replicas must be >= 0')).toEqual({ state: 'failure', objects: 2, reason: 'ValidationFailed: spec.replicas must be >= 0' });
    expect(await replicaB.ran({ source: 'shop', revision: sha, cluster: 'west' }, 'b', 'failed', 'HealthCheckFailed: later')).toBeUndefined();
    expect(await replicaB.ran({ source: 'shop', revision: sha, cluster: 'west' }, 'a', 'done')).toBeUndefined();
    expect(await replicaB.ran({ source: 'shop', revision: sha, cluster: 'west' }, 'b', 'done')).toEqual({ state: 'success', objects: 2 });
  });

  it('supersedes, once across replicas, an older commit whose pending object a newer commit carries, and nothing after it', async () => {
    const [older, newer] = ['1'.repeat(40), '2'.repeat(40)];
    const on = (revision: string) => ({ source: 'shop', revision, cluster: 'up' });
    await replicaA.pickedUp(on(older), ['a', 'b']);
    await replicaA.ran(on(older), 'a', 'done');
    await replicaB.pickedUp(on(newer), ['b', 'c']);
    const claims = await Promise.all([replicaA.supersede(on(newer), ['b', 'c']), replicaB.supersede(on(newer), ['b', 'c'])]);
    expect(claims.flat()).toEqual([{ revision: older, claim: { state: 'superseded', objects: 2, supersededBy: newer } }]);
    expect(await replicaA.finished(on(older))).toBe(true);
    // A run of the older commit that ends after it was superseded claims nothing more.
    expect(await replicaA.ran(on(older), 'b', 'done')).toBeUndefined();
    expect(await replicaA.supersede(on(newer), ['b', 'c'])).toEqual([]);
    // The newer commit itself goes on to its own end.
    await replicaA.ran(on(newer), 'b', 'done');
    expect(await replicaA.ran(on(newer), 'c', 'done')).toEqual({ state: 'success', objects: 2 });
  });

  it('leaves alone an older commit whose pending objects the newer one does not carry, and commits that came after', async () => {
    const [first, second, third] = ['3'.repeat(40), '4'.repeat(40), '5'.repeat(40)];
    const on = (revision: string) => ({ source: 'shop', revision, cluster: 'down' });
    await replicaA.pickedUp(on(first), ['x', 'y']);
    await replicaA.ran(on(first), 'y', 'done');
    // The second commit changes y only, which the first has done: x still runs at the first revision.
    await replicaA.pickedUp(on(second), ['y']);
    expect(await replicaA.supersede(on(second), ['y'])).toEqual([]);
    expect(await replicaA.ran(on(first), 'x', 'done')).toEqual({ state: 'success', objects: 2 });
    // A commit never supersedes one picked up after it.
    await replicaA.pickedUp(on(third), ['y']);
    expect(await replicaA.supersede(on(second), ['y'])).toEqual([]);
    expect(await replicaA.supersede(on(third), ['y'])).toEqual([{ revision: second, claim: { state: 'superseded', objects: 1, supersededBy: third } }]);
    // Ended commits leave the cluster's open set.
    expect(await redis.zrange(keys.commitStatusOpen('shop', 'down'), 0, -1)).toEqual([third]);
  });

  it('ignores runs of commits and objects it does not track, and commits that changed nothing on a cluster', async () => {
    expect(await replicaA.pickedUp({ source: 'shop', revision: sha, cluster: 'north' }, [])).toBeUndefined();
    expect(await replicaA.ran({ source: 'shop', revision: 'b'.repeat(40), cluster: 'east' }, 'a', 'done')).toBeUndefined();
    await replicaA.pickedUp({ source: 'shop', revision: sha, cluster: 'south' }, ['a']);
    expect(await replicaA.ran({ source: 'shop', revision: sha, cluster: 'south' }, 'not-in-the-commit', 'done')).toBeUndefined();
    expect(await replicaA.ran({ source: 'shop', revision: sha, cluster: 'south' }, 'a', 'done')).toEqual({ state: 'success', objects: 1 });
  });
});
