// The wait registry on a real Redis: a waiter registered on a token is enqueued once when the token
// wakes, with the newest revision it registered at, and then forgotten.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ReconcileJob } from '@tidemark/contracts';
import { DependencyWaits, crdToken, objectToken } from '@tidemark/ordering';

let redis: Redis;
const prefix = `waits${randomUUID().slice(0, 8)}`;
const enqueued: ReconcileJob[] = [];
let waits: DependencyWaits;
const revision = (digit: string) => digit.repeat(40);

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
  waits = new DependencyWaits({ redis, prefix, enqueue: async (job) => { enqueued.push(job); } });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('DependencyWaits', () => {
  it('wakes each waiter of a token once, at its newest revision, and only on its cluster', async () => {
    await waits.register('east', objectToken('apps/Deployment/db/postgres'), { source: 'apps', revision: revision('a'), objectKey: 'core/ConfigMap/shop/settings' });
    await waits.register('east', objectToken('apps/Deployment/db/postgres'), { source: 'apps', revision: revision('b'), objectKey: 'core/ConfigMap/shop/settings' });
    await waits.register('east', crdToken('acme.example', 'Widget'), { source: 'infra', revision: revision('c'), objectKey: 'acme.example/Widget/shop/first' });
    await waits.register('west', objectToken('apps/Deployment/db/postgres'), { source: 'apps', revision: revision('d'), objectKey: 'core/ConfigMap/shop/settings' });

    expect(await waits.wake('east', [objectToken('apps/Deployment/db/postgres'), crdToken('acme.example', 'Widget')])).toBe(2);
    expect(enqueued).toEqual([
      { source: 'apps', revision: revision('b'), cluster: 'east', objectKey: 'core/ConfigMap/shop/settings', reason: 'watch' },
      { source: 'infra', revision: revision('c'), cluster: 'east', objectKey: 'acme.example/Widget/shop/first', reason: 'watch' },
    ]);
    expect(await waits.wake('east', [objectToken('apps/Deployment/db/postgres')])).toBe(0);
    expect(await waits.wake('west', [objectToken('apps/Deployment/db/postgres')])).toBe(1);
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });
});
