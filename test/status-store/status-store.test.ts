// The status store on the rig's Redis: the record, the suspend flag and the cluster's
// availability are written by different owners, and none of them undoes another.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { findCondition, type ObjectStatus } from '@tidemark/contracts';
import { writeClusterHealth } from '@tidemark/cluster-health';
import { StatusStore } from '@tidemark/status-store';

const redis = new Redis(inject('redisUrl'));
const prefix = `store-${randomUUID().slice(0, 8)}`;
const store = new StatusStore({ redis, prefix });
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const readyAt = '2026-11-30T10:00:00.000Z';
function record(cluster: string, name: string): ObjectStatus {
  return {
    cluster, objectKey: `core/ConfigMap/shop/${name}`, source: 'main', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name,
    conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, reason: 'Succeeded', message: 'Applied.', lastTransitionTime: readyAt }],
    inventory: [], updatedAt: readyAt,
  };
}

describe('suspend', () => {
  it('is a flag of its own: a record written after a suspend keeps it, and the stored record never holds it', async () => {
    const status = record('a', 'flag');
    await store.put(status);
    expect((await store.setSuspended('a', status.objectKey, true))?.suspended).toBe(true);
    await store.record('a', status.objectKey, { ...status, updatedAt: new Date().toISOString() }, { revision: 'c'.repeat(40), startedAt: readyAt, durationMs: 1, result: 'succeeded' });
    expect((await store.get('a', status.objectKey))?.suspended).toBe(true);
    expect((await store.list('a')).find((entry) => entry.objectKey === status.objectKey)?.suspended).toBe(true);
    expect(JSON.parse((await redis.hget(store.keys.objectStatus('a'), status.objectKey))!)).not.toHaveProperty('suspended');

    // A writer that passes a stale flag changes nothing either way.
    await store.put({ ...status, suspended: false });
    expect((await store.get('a', status.objectKey))?.suspended).toBe(true);
    await store.setSuspended('a', status.objectKey, false);
    await store.put({ ...status, suspended: true });
    expect((await store.get('a', status.objectKey))?.suspended).toBeUndefined();
  });

  it('cannot suspend an object that has no record, and leaves no flag behind', async () => {
    expect(await store.setSuspended('a', 'core/ConfigMap/shop/never', true)).toBeUndefined();
    expect(await redis.hexists(store.keys.suspended('a'), 'core/ConfigMap/shop/never')).toBe(0);
  });

  it('goes with the record when the object is deleted', async () => {
    const status = record('a', 'deleted');
    await store.put(status);
    await store.setSuspended('a', status.objectKey, true);
    await store.delete('a', status.objectKey);
    await store.put(status);
    expect((await store.get('a', status.objectKey))?.suspended).toBeUndefined();
  });
});

describe('cluster availability', () => {
  it('shows on every record while the cluster is unavailable, without rewriting any, and is gone once it is back', async () => {
    const status = record('b', 'waiting');
    await store.put(status);
    const stored = await redis.hget(store.keys.objectStatus('b'), status.objectKey);
    const since = '2026-11-30T11:00:00.000Z';
    await writeClusterHealth(redis, store.keys, { cluster: 'b', state: 'Unavailable', since, lastCheck: since, message: 'Cluster b is unavailable: connection refused.', queuePaused: true });

    const waiting = await store.get('b', status.objectKey);
    expect(findCondition(waiting?.conditions, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'ClusterUnavailable', message: 'Cluster b is unavailable: connection refused.', lastTransitionTime: since });
    expect(findCondition(waiting?.conditions, 'Reconciling')).toMatchObject({ status: 'True', reason: 'ClusterUnavailable' });
    expect(findCondition((await store.list('b'))[0]?.conditions, 'Ready')?.reason).toBe('ClusterUnavailable');
    expect(await redis.hget(store.keys.objectStatus('b'), status.objectKey)).toBe(stored);

    await writeClusterHealth(redis, store.keys, { cluster: 'b', state: 'Available', since, lastCheck: since, queuePaused: false });
    expect(findCondition((await store.get('b', status.objectKey))?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Succeeded', lastTransitionTime: readyAt });
  });
});

describe('record', () => {
  it('writes the record and its history entry together, and announces the record', async () => {
    const subscriber = redis.duplicate();
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(store.channel);
    const status = record('c', 'once');
    await store.record('c', status.objectKey, status, { revision: 'd'.repeat(40), startedAt: readyAt, durationMs: 3, result: 'succeeded' });
    expect((await store.get('c', status.objectKey))?.name).toBe('once');
    expect((await store.history('c', status.objectKey)).map((entry) => entry.revision)).toEqual(['d'.repeat(40)]);
    await expect.poll(() => messages).toEqual([JSON.stringify({ cluster: 'c', objectKey: status.objectKey, kind: 'updated' })]);
    subscriber.disconnect();
  });

  it('folds runs that changed nothing and ended alike into the newest history entry, and keeps the runs that changed something', async () => {
    const status = record('a', 'folded');
    const run = (configured: number, result: 'succeeded' | 'failed' = 'succeeded', startedAt = new Date().toISOString()) =>
      ({ revision: 'd'.repeat(40), startedAt, durationMs: 3, result, message: 'Applied.', changes: { created: 0, configured, unchanged: 3, deleted: 0 } });
    await store.record('a', status.objectKey, status, run(1));
    await store.record('a', status.objectKey, status, run(0));
    await store.record('a', status.objectKey, status, run(0, 'succeeded', '2026-11-30T11:00:00.000Z'));
    await store.record('a', status.objectKey, status, run(0, 'failed'));
    const history = await store.history('a', status.objectKey);
    expect(history.map((entry) => [entry.result, entry.changes?.configured, entry.repeats ?? 1])).toEqual([['failed', 0, 1], ['succeeded', 0, 2], ['succeeded', 1, 1]]);
    expect(history[1]?.lastAt).toBe('2026-11-30T11:00:00.000Z');
  });

  it('announces every record of a cluster when its availability moves, without writing any', async () => {
    await store.put(record('e', 'one'));
    await store.put(record('e', 'two'));
    const before = await redis.hgetall(store.keys.objectStatus('e'));
    const subscriber = redis.duplicate();
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(store.channel);
    await store.announceCluster('e');
    await expect.poll(() => messages.map((message) => JSON.parse(message) as { objectKey: string }).map((change) => change.objectKey).sort())
      .toEqual(['core/ConfigMap/shop/one', 'core/ConfigMap/shop/two']);
    expect(await redis.hgetall(store.keys.objectStatus('e'))).toEqual(before);
    subscriber.disconnect();
  });

  it('skips a stored record that is not one, rather than trusting it', async () => {
    await redis.hset(store.keys.objectStatus('d'), 'core/ConfigMap/shop/garbage', '{"name": 3}');
    expect(await store.get('d', 'core/ConfigMap/shop/garbage')).toBeUndefined();
    expect(await store.list('d')).toEqual([]);
  });
});

describe('reading many records', () => {
  it('scan visits every record of a cluster once, across HSCAN batches, as list sees it; getMany answers in the order asked', async () => {
    const cluster = 'many';
    const names = Array.from({ length: 1_200 }, (_, index) => `cm-${index}`);
    for (let start = 0; start < names.length; start += 200) await Promise.all(names.slice(start, start + 200).map((name) => store.put(record(cluster, name))));
    const seen: string[] = [];
    await store.scan(cluster, (status) => seen.push(status.name));
    expect(seen.sort()).toEqual([...names].sort());
    expect(seen).toHaveLength((await store.list(cluster)).length);
    const picked = await store.getMany(cluster, ['core/ConfigMap/shop/cm-7', 'core/ConfigMap/shop/absent', 'core/ConfigMap/shop/cm-3']);
    expect(picked.map((status) => status?.name)).toEqual(['cm-7', undefined, 'cm-3']);
  });
});
