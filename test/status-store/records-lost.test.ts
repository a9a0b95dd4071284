// The records-lost mark and seeded records on the rig's Redis: a rebuilt record never replaces a
// run's own, and the mark says which (source, cluster) pairs still have to rebuild.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { RecordKeys, type ObjectStatus, type ReconcileRecord } from '@tidemark/contracts';
import { RecordsLost, StatusStore } from '@tidemark/status-store';

const redis = new Redis(inject('redisUrl'));
const prefix = `lost-${randomUUID().slice(0, 8)}`;
const store = new StatusStore({ redis, prefix });
const lost = new RecordsLost(redis, new RecordKeys(prefix));
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const at = '2026-12-06T12:00:00.000Z';
const record = (reason: string): ObjectStatus => ({
  cluster: 'east', objectKey: 'core/ConfigMap/shop/a', source: 'apps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a',
  conditions: [{ type: 'Ready', status: 'False', observedGeneration: 0, reason, message: reason, lastTransitionTime: at }], inventory: [], updatedAt: at,
});
const entry: ReconcileRecord = { revision: 'a'.repeat(40), startedAt: at, durationMs: 0, result: 'progressing', stage: 'rebuild', message: 'Rebuilt.' };

describe('seed', () => {
  it('writes a record and its history entry where none is, and leaves a run\'s own record alone', async () => {
    expect(await store.seed(record('RebuiltFromCluster'), entry)).toBe(true);
    expect((await store.get('east', 'core/ConfigMap/shop/a'))?.conditions[0]?.reason).toBe('RebuiltFromCluster');
    expect((await store.history('east', 'core/ConfigMap/shop/a')).map((item) => item.stage)).toEqual(['rebuild']);
    await store.put(record('ReconciliationSucceeded'));
    expect(await store.seed(record('RebuiltFromCluster'), entry)).toBe(false);
    expect((await store.get('east', 'core/ConfigMap/shop/a'))?.conditions[0]?.reason).toBe('ReconciliationSucceeded');
    expect(await store.history('east', 'core/ConfigMap/shop/a')).toHaveLength(1);
  });
});

describe('RecordsLost', () => {
  it('has nothing pending without a loss; after one, each pair until it finishes; the first loss time stays', async () => {
    expect(await lost.pending('apps', ['east', 'west'])).toEqual([]);
    await lost.mark(new Date(at));
    await lost.mark(new Date('2027-01-01T00:00:00Z'));
    expect(await redis.hget(new RecordKeys(prefix).recordsLost, 'lostAt')).toBe(at);
    expect(await lost.pending('apps', ['east', 'west'])).toEqual(['east', 'west']);
    await lost.finish('apps', 'east', { at, rebuilt: 3, refused: 1, truncated: false, unlistable: [] });
    expect(await lost.pending('apps', ['east', 'west'])).toEqual(['west']);
    expect(await lost.pending('other', ['east'])).toEqual(['east']);
    expect(await lost.summary('apps', 'east')).toMatchObject({ rebuilt: 3, refused: 1 });
    // A summary that is not one (written by hand) reads as none.
    await redis.hset(new RecordKeys(prefix).recordsLost, 'done:apps|west', '{"at":1');
    expect(await lost.summary('apps', 'west')).toBeUndefined();
  });
});
