// The dashboard's status cache when a record announced on the status channel cannot be read (Redis
// failing over, a connection dropped): the change is read again later, and the object appears once
// the read succeeds. Taken as "no record", the row was dropped until the object changed once more
// (CI saw the dashboard list 297 of 300 Ready objects for good after a Redis Cluster failover).
// Real Redis: the reader logs in as an ACL user of its own, whose key rights are taken away and
// given back, so its reads are refused by Redis itself (NOPERM).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { closeRedis, openRedisClient, openRedisSubscriber, redisPrefix } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { StatusCache } from '../../apps/dashboard/src/view/status-cache';
import { waitFor } from '../queue/helpers';

const id = randomUUID().slice(0, 8);
const prefix = redisPrefix({ prefix: `cache-retry-${id}`, hashTag: false });
const user = `cache-reader-${id}`;
const password = randomUUID();
let admin: Redis;

function record(name: string): ObjectStatus {
  return { cluster: 'east', objectKey: `core/ConfigMap/a/${name}`, source: 'repo', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name, conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}

const readerUrl = () => {
  const url = new URL(inject('redisUrl'));
  url.username = user;
  url.password = password;
  return url.toString();
};

beforeAll(async () => {
  admin = openRedisClient({ url: inject('redisUrl') }) as Redis;
  await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, `~${prefix}*`, '&*', '+@all');
});
afterAll(async () => {
  await admin?.call('ACL', 'DELUSER', user).catch(() => undefined);
  if (admin) await closeRedis(admin);
});

describe('the status cache when a record it was told of cannot be read', () => {
  it('reads it again later: the object appears once Redis answers, and its row is not dropped', async () => {
    const writer = openRedisClient({ url: inject('redisUrl') });
    const reader = openRedisClient({ url: readerUrl() });
    const subscriber = openRedisSubscriber({ url: inject('redisUrl') });
    for (const client of [writer, reader, subscriber]) client.on('error', () => undefined);
    const store = new StatusStore({ redis: writer, prefix });
    const cache = new StatusCache({ store: new StatusStore({ redis: reader, prefix }), subscriber, retryMs: 200 });
    const result = { revision: 'r1', startedAt: new Date().toISOString(), durationMs: 1, result: 'succeeded' } as const;
    try {
      await cache.start();
      const known = record('known');
      await store.record('east', known.objectKey, known, result);
      await waitFor(() => cache.cellsOf(known.objectKey)?.get('east') !== undefined, 10_000, 'a record written while reads work to reach the cache');

      // Reads refused: the reader may touch no key. Both changes are announced and their reads fail.
      await admin.call('ACL', 'SETUSER', user, 'resetkeys');
      const late = record('late');
      await store.record('east', late.objectKey, late, result);
      await store.record('east', known.objectKey, { ...known, updatedAt: new Date().toISOString() }, { ...result, revision: 'r2' });
      await expect(reader.get(`${prefix}:anything`)).rejects.toThrow(/NOPERM/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Nothing read is nothing known: the row the cache had is still there.
      expect(cache.cellsOf(known.objectKey)?.get('east')).toBeDefined();

      // Reads work again; no new change is announced, and the cache still gets both.
      await admin.call('ACL', 'SETUSER', user, `~${prefix}*`);
      await waitFor(() => cache.cellsOf(late.objectKey)?.get('east') !== undefined, 10_000, 'the record whose read failed to reach the cache once reads work');
      expect(cache.rows().map((row) => row.objectKey)).toEqual([known.objectKey, late.objectKey]);
    } finally {
      await cache.stop();
      await Promise.all([writer, reader, subscriber].map((client) => closeRedis(client)));
    }
  }, 60_000);
});
