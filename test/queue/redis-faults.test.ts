// Redis faults: processes ride out a Redis outage and resume; a resync rebuilds work a Redis
// lost; and start-up refuses a Redis that may evict keys.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '@tidemark/testing';
import { QueueUnavailableError, ReconcileQueues, UnsafeRedisError, assertRedisSafe } from '@tidemark/queue';
import { probeKeys } from './fixtures/probe';
import { jobFor, killHard, revision, sleep, spawnWorker, testPrefix, waitFor, type WorkerProcess } from './helpers';

/** privateRedis starts a redis-server of our own, even when REDIS_URL names a shared one: we stop it. */
async function privateRedis(args: string[]): Promise<TestRedis> {
  const shared = process.env.REDIS_URL;
  delete process.env.REDIS_URL;
  try {
    return await startRedis({ args });
  } finally {
    if (shared !== undefined) process.env.REDIS_URL = shared;
  }
}

describe('Redis stopped and restarted', () => {
  let server: TestRedis;
  const processes: WorkerProcess[] = [];

  beforeAll(async () => {
    // AOF with fsync on every write, as production Redis must run: a restart keeps the queues.
    server = await privateRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  });

  afterAll(async () => {
    await Promise.all(processes.splice(0).map(killHard));
    await server.stop();
  });

  it('for a minute: worker processes stay up, reconnect and finish the work; a resync rebuilds what a wiped Redis lost', async () => {
    const prefix = testPrefix();
    const cluster = 'outage';
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const queues = new ReconcileQueues({ connection: server.url, prefix, clusters: [cluster] });
    await queues.start();
    for (const name of ['w1', 'w2']) {
      processes.push(await spawnWorker({ redisUrl: server.url, prefix, name, workMs: [50, 150], workers: { clusters: [cluster], lockDurationMs: 2_000, stalledIntervalMs: 1_000 } }));
    }
    const objects = Array.from({ length: 20 }, (_, index) => `apps/Deployment/outage/app-${index}`);
    const keys = probeKeys(prefix);
    const convergedAt = (n: number) => async () => {
      const last = await redis.hgetall(keys.last(cluster));
      return objects.every((key) => last[key] === revision(n));
    };
    for (const key of objects) await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(convergedAt(1), 10_000, 'revision 1 everywhere');

    for (const key of objects) await queues.enqueue(jobFor(cluster, key, 2));
    await server.kill();
    const refused = await queues.enqueue(jobFor(cluster, objects[0]!, 3)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QueueUnavailableError);
    expect((refused as QueueUnavailableError).code).toBe('QueueUnavailable');
    await sleep(60_000);
    expect(processes.map((worker) => worker.child.exitCode)).toEqual([null, null]);
    await server.restart();

    await waitFor(convergedAt(2), 20_000, 'the jobs queued before the outage to finish');
    for (const key of objects) await queues.enqueue(jobFor(cluster, key, 3));
    await waitFor(convergedAt(3), 20_000, 'new work after the outage');

    // Every run over first: a job re-run after the outage (its lock ran out while Redis was down)
    // can still wait behind revision 3, and one the wipe cut in half would run beside the resync's.
    const idle = async () => {
      const [figures] = await queues.figures();
      const depth = figures?.depth;
      return depth !== undefined && depth.waiting + depth.active + depth.delayed + depth.prioritized === 0;
    };
    await waitFor(idle, 20_000, 'the queue to drain before the wipe');
    // A Redis that kept nothing: the periodic resync enqueues every object again.
    await redis.flushall();
    expect(await queues.enqueueAll(objects.map((key) => jobFor(cluster, key, 3, 'resync')))).toEqual({ queued: 20, merged: 0, stalled: 0 });
    await waitFor(convergedAt(3), 20_000, 'the resync to rebuild every object');
    expect(processes.map((worker) => worker.child.exitCode)).toEqual([null, null]);
    expect(await redis.get(keys.overlaps)).toBeNull();
    await queues.close();
    redis.disconnect();
  });
});

describe('assertRedisSafe', () => {
  it('refuses a Redis that may evict keys, says why, and accepts it only when allowed', async () => {
    const evicting = await privateRedis(['--maxmemory-policy', 'allkeys-lru']);
    try {
      const refused = await assertRedisSafe(evicting.url).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UnsafeRedisError);
      expect((refused as Error).message).toMatch(/maxmemory-policy allkeys-lru.*evict queue keys.*noeviction/s);
      const allowed = await assertRedisSafe(evicting.url, { allowEviction: true });
      expect(allowed.maxmemoryPolicy).toBe('allkeys-lru');
      expect(allowed.warnings.join(' ')).toMatch(/Allowed by configuration/);
    } finally {
      await evicting.stop();
    }
  });

  it('accepts the rig\'s noeviction Redis', async () => {
    const safety = await assertRedisSafe(inject('redisUrl'));
    expect(safety.maxmemoryPolicy).toBe('noeviction');
  });
});
