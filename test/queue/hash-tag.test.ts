// Redis Cluster needs every key of a queue in one slot: with hashTag, a cluster's queue prefix is
// `{prefix.cluster}` and every key of that queue, BullMQ's and ours, starts with it (checked here
// on a standalone Redis; test/queue/redis-topologies checks the slots on a real Redis Cluster).
import { describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import { jobFor, removeKeys, testPrefix, waitFor } from './helpers';

describe('hash-tagged prefix', () => {
  it('keeps every key of the queue under the hash tag while jobs run', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = testPrefix();
    const redis = new Redis(redisUrl);
    const queues = new ReconcileQueues({ connection: redisUrl, prefix, hashTag: true, clusters: ['tagged'] });
    const workers = new ReconcileWorkers({ connection: redisUrl, prefix, hashTag: true, clusters: ['tagged'], onError: () => undefined });
    let runs = 0;
    try {
      await queues.start();
      await workers.start(async () => { runs += 1; return { kind: 'requeue', afterMs: 60_000 }; });
      await queues.enqueue(jobFor('tagged', 'core/ConfigMap/t/a', 1));
      await waitFor(async () => runs === 1 && (await queues.figures())[0]?.depth.delayed === 1, 5_000, 'the job to run and wait for its requeue');
      const keys = await redis.keys(`*${prefix}*`);
      expect(keys.length).toBeGreaterThan(3);
      for (const key of keys) expect(key.startsWith(`{${prefix}.tagged}:reconcile.tagged:`)).toBe(true);
    } finally {
      await workers.close();
      await queues.close();
      await removeKeys(redis, `{${prefix}.tagged}`);
      redis.disconnect();
    }
  });
});
