// The cluster sparkline of failures counts failed runs per sampling interval, from a counter the
// queue keeps in Redis: an object that fails four times and then recovers is four failed runs in
// that interval, though it is no longer a failing object when the sample is taken.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { RecordKeys, TerminalError, TransientError, readClusterSeries } from '@tidemark/contracts';
import { startClusterSeries } from '@tidemark/cluster-health';
import { ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import { jobFor, removeKeys, testPrefix, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'failed-runs';

describe('failed runs per sampling interval', () => {
  let prefix: string;
  let redis: Redis;
  let queues: ReconcileQueues;
  let workers: ReconcileWorkers | undefined;
  let series: { stop(): Promise<void>; sampleNow(): Promise<void> } | undefined;

  beforeEach(async () => {
    prefix = testPrefix();
    redis = new Redis(redisUrl);
    queues = new ReconcileQueues({ connection: redisUrl, prefix, clusters: [cluster] });
    await queues.start();
  });

  afterEach(async () => {
    await series?.stop();
    await workers?.close();
    workers = undefined;
    await queues.close();
    await removeKeys(redis, prefix);
    redis.disconnect();
  });

  it('counts each failed run once, in the interval it happened, whatever became of the object', async () => {
    const runs = new Map<string, number>();
    workers = new ReconcileWorkers({
      connection: redisUrl, prefix, clusters: [{ name: cluster, concurrency: 2 }],
      backoff: { baseMs: 50, factor: 1, maxMs: 50, jitter: 0 }, onError: () => undefined,
    });
    await workers.start(async (job) => {
      const run = (runs.get(job.objectKey) ?? 0) + 1;
      runs.set(job.objectKey, run);
      if (job.objectKey.endsWith('/flaky') && run <= 4) throw new TransientError('ApiUnavailable', `attempt ${run} failed`);
      if (job.objectKey.endsWith('/invalid')) throw new TerminalError('Invalid', 'spec.replicas must be a number');
      return { kind: 'done' };
    });
    const keys = new RecordKeys(prefix);
    // A long interval: the test takes its samples itself.
    series = startClusterSeries({ queues, redis, keys, intervalMs: 3_600_000 });
    const samples = () => readClusterSeries(redis, keys, cluster);
    await waitFor(async () => (await samples()).length === 1, 5_000, 'the first sample');

    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/flaky', 1));
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/fine', 1));
    await waitFor(() => runs.get('core/ConfigMap/a/flaky') === 5 && runs.get('core/ConfigMap/a/fine') === 1, 10_000, 'four failures, then success');
    await waitFor(async () => (await queues.figures())[0]!.failingObjects === 0, 5_000, 'the flaky object to stop failing');
    await series.sampleNow();

    await queues.enqueue(jobFor(cluster, 'apps/Deployment/a/invalid', 1));
    await waitFor(async () => (await queues.figures())[0]!.failingObjects === 1, 5_000, 'the invalid object to fail');
    await series.sampleNow();
    await series.sampleNow();

    const taken = await samples();
    expect(taken.map((sample) => sample.failedRuns)).toEqual([undefined, 4, 1, 0]);
    expect(taken.map((sample) => sample.failing)).toEqual([0, 0, 1, 1]);
    expect(taken.at(-1)!.failedRunsTotal).toBe(5);
  });
});
