// A job's traceparent comes back out of Redis: a worker runs the job whatever it says, passing a
// valid one on to the handler and dropping anything else; a producer refuses to write a bad one.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { reconcileJobName, type ReconcileJob } from '@tidemark/contracts';
import { clusterQueuePrefix, formatJobId, InvalidJobError, queueNameFor, ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import { jobFor, removeKeys, testPrefix, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'traced';
const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparent in a job', () => {
  let prefix: string;
  let redis: Redis;
  let queues: ReconcileQueues;
  let workers: ReconcileWorkers | undefined;
  let raw: Queue;
  let seen: ReconcileJob[];

  beforeEach(async () => {
    prefix = testPrefix();
    redis = new Redis(redisUrl);
    seen = [];
    queues = new ReconcileQueues({ connection: redisUrl, prefix, clusters: [cluster] });
    await queues.start();
    raw = new Queue(queueNameFor(cluster), { connection: redis, prefix: clusterQueuePrefix({ prefix }, cluster) });
    workers = new ReconcileWorkers({ connection: redisUrl, prefix, clusters: [{ name: cluster, concurrency: 2 }], onError: () => undefined });
    await workers.start(async (job) => {
      seen.push(job);
      return { kind: 'done' };
    });
  });

  afterEach(async () => {
    await workers?.close();
    await raw.close();
    await queues.close();
    await removeKeys(redis, prefix);
    redis.disconnect();
  });

  it('hands a valid traceparent to the handler', async () => {
    await queues.enqueue({ ...jobFor(cluster, 'core/ConfigMap/a/valid', 1), traceparent: valid });
    await waitFor(() => seen.length === 1, 10_000, 'the job to run');
    expect(seen[0]).toMatchObject({ objectKey: 'core/ConfigMap/a/valid', traceparent: valid });
  });

  it('runs a job whose traceparent written to Redis is not one, without it', async () => {
    const bad = [valid.toUpperCase(), `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, `${valid}${'0'.repeat(64 * 1024)}`, 12, { traceId: 'x' }];
    for (const [index, traceparent] of bad.entries()) {
      const objectKey = `core/ConfigMap/a/bad-${index}`;
      await raw.add(reconcileJobName(), { ...jobFor(cluster, objectKey, 1), traceparent }, { jobId: formatJobId(objectKey), removeOnComplete: true });
    }
    await waitFor(() => seen.length === bad.length, 10_000, 'every job to run');
    for (const job of seen) expect(job).not.toHaveProperty('traceparent');
  });

  it('refuses to queue a job with a traceparent that is not one', async () => {
    await expect(queues.enqueue({ ...jobFor(cluster, 'core/ConfigMap/a/refused', 1), traceparent: 'ff-not-a-trace' })).rejects.toThrow(InvalidJobError);
  });
});
