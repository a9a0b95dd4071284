// moveClusterKeys on the rig's redis-server, with a hash-tagged prefix: each old-layout record of a
// target cluster (hash, list, string, set, sorted set, and the shared prune-hold index and
// revision-live hashes, which are split per cluster) ends under its cluster's tag; where the new
// release already wrote the record, the old one fills in only what is missing; shared records stay.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { moveClusterKeys, RecordKeys } from '@tidemark/contracts';

const id = randomUUID().slice(0, 8);
const keys = new RecordKeys(`{mv-${id}}`);
const old = (rest: string) => `${keys.prefix}:${rest}`;
const redis = new Redis(inject('redisUrl'));

afterAll(async () => {
  for (const pattern of [`{mv-${id}}*`, `{mv-${id}.*`]) {
    const found = await redis.keys(pattern);
    if (found.length > 0) await redis.del(...found);
  }
  redis.disconnect();
});

describe('moveClusterKeys', () => {
  it('moves every record of a cluster to its tag, merges into what the new release wrote, and keeps shared ones', async () => {
    await redis.hset(old('status:east'), { a: 'old-a', b: 'old-b' });
    await redis.hset(keys.objectStatus('east'), { b: 'new-b' });
    await redis.rpush(old('history:east:core/ConfigMap/x/a'), 'old-2', 'old-1');
    await redis.lpush(keys.history('east', 'core/ConfigMap/x/a'), 'new-1');
    await redis.set(old('cluster-freeze:west'), '{"by":"ops"}');
    await redis.zadd(old('commit-status-open:apps:west'), 1, 'r1');
    await redis.sadd(old('waiters:east:crd:example.com/Widget'), 'w');
    await redis.set(old('prune-hold:apps:east'), '{"state":"waiting"}', 'EX', 600);
    await redis.sadd(old('prune-holds'), 'east/apps', 'west/apps');
    await redis.hset(old('revision-live:apps:r1'), { 'east|first': 't1', 'east|last': 't2', 'west|first': 't3' });
    await redis.expire(old('revision-live:apps:r1'), 600);
    await redis.hset(keys.sourceStatus('apps'), 'revision', 'r1');

    const done = await moveClusterKeys(redis, keys);
    expect(done.changed).toBe(0);
    expect(await redis.hgetall(keys.objectStatus('east'))).toEqual({ a: 'old-a', b: 'new-b' });
    expect(await redis.lrange(keys.history('east', 'core/ConfigMap/x/a'), 0, -1)).toEqual(['new-1', 'old-2', 'old-1']);
    expect(await redis.get(keys.clusterFreeze('west'))).toBe('{"by":"ops"}');
    expect(await redis.zrange(keys.commitStatusOpen('apps', 'west'), 0, -1)).toEqual(['r1']);
    expect(await redis.smembers(keys.dependencyWaiters('east', 'crd:example.com/Widget'))).toEqual(['w']);
    expect(await redis.ttl(keys.pruneHold('apps', 'east'))).toBeGreaterThan(500);
    expect(await redis.smembers(keys.pruneHolds('east'))).toEqual(['east/apps']);
    expect(await redis.smembers(keys.pruneHolds('west'))).toEqual(['west/apps']);
    expect(await redis.hgetall(keys.revisionLive('apps', 'r1', 'east'))).toEqual({ 'east|first': 't1', 'east|last': 't2' });
    expect(await redis.hgetall(keys.revisionLive('apps', 'r1', 'west'))).toEqual({ 'west|first': 't3' });
    expect(await redis.ttl(keys.revisionLive('apps', 'r1', 'west'))).toBeGreaterThan(500);
    // Nothing of a cluster is left under the shared tag; the shared records stay.
    expect((await redis.keys(`${keys.prefix}:*`)).sort()).toEqual([keys.sourceStatus('apps')]);
    // A second pass finds nothing.
    expect(await moveClusterKeys(redis, keys)).toEqual({ moved: 0, changed: 0, statuses: 0 });
  });

  it('moves heartbeats and window passes, and a status record an older worker wrote later wins the merge', async () => {
    const at = (iso: string) => JSON.stringify({ objectKey: 'core/ConfigMap/x/a', updatedAt: iso, lastAppliedRevision: iso });
    await redis.set(old('agent-heartbeat:north'), '{"version":"0.1.0"}', 'PX', 60_000);
    await redis.set(old('window-pass:north:core/ConfigMap/x/a'), '{"by":"ops"}', 'EX', 600);
    await redis.hset(old('status:north'), { a: at('2026-12-06T10:00:02.000Z'), b: at('2026-12-06T10:00:00.000Z') });
    await redis.hset(keys.objectStatus('north'), { a: at('2026-12-06T10:00:01.000Z'), b: at('2026-12-06T10:00:01.000Z') });

    expect(await moveClusterKeys(redis, keys)).toEqual({ moved: 2, changed: 0, statuses: 1 });
    expect(await redis.get(keys.agentHeartbeat('north'))).toBe('{"version":"0.1.0"}');
    expect(await redis.pttl(keys.agentHeartbeat('north'))).toBeGreaterThan(0);
    expect(await redis.get(keys.syncWindowPass('north', 'core/ConfigMap/x/a'))).toBe('{"by":"ops"}');
    // The older worker ran `a` last: its record is kept; `b` the newer release ran last keeps its own.
    expect(await redis.hgetall(keys.objectStatus('north'))).toEqual({ a: at('2026-12-06T10:00:02.000Z'), b: at('2026-12-06T10:00:01.000Z') });
    expect(await redis.exists(old('status:north'))).toBe(0);
  });

  it('keeps the shared status copy while an older release may read it (keepSharedStatus)', async () => {
    await redis.hset(old('status:south'), { a: 'old-a' });
    await redis.rpush(old('history:south:core/ConfigMap/x/a'), 'old-1');

    expect(await moveClusterKeys(redis, keys, { keepSharedStatus: true })).toEqual({ moved: 1, changed: 0, statuses: 1 });
    expect(await redis.hgetall(keys.objectStatus('south'))).toEqual({ a: 'old-a' });
    expect(await redis.hgetall(old('status:south'))).toEqual({ a: 'old-a' });
    expect(await moveClusterKeys(redis, keys)).toEqual({ moved: 0, changed: 0, statuses: 1 });
    expect(await redis.exists(old('status:south'))).toBe(0);
  });
});
