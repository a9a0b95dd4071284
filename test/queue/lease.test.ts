// The fence: a handler's signal aborts as soon as its worker loses the job's lock, before
// another worker can take the object; the job then runs again elsewhere.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { JobAbortedError, ReconcileQueues, ReconcileWorkers, queueNameFor } from '@tidemark/queue';
import { jobFor, removeKeys, testPrefix, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'lease';

describe('lease fence', () => {
  let prefix: string;
  let redis: Redis;
  let queues: ReconcileQueues;
  let workers: ReconcileWorkers;

  beforeEach(async () => {
    prefix = testPrefix();
    redis = new Redis(redisUrl);
    queues = new ReconcileQueues({ connection: redisUrl, prefix, clusters: [cluster] });
    await queues.start();
  });

  afterEach(async () => {
    await workers.close();
    await queues.close();
    await removeKeys(redis, prefix);
    redis.disconnect();
  });

  it('aborts the handler when its lock is lost, and the object runs again', async () => {
    const reasons: unknown[] = [];
    let runs = 0;
    workers = new ReconcileWorkers({ connection: redisUrl, prefix, clusters: [cluster], lockDurationMs: 1_000, stalledIntervalMs: 500, onError: () => undefined });
    await workers.start(async (_job, signal) => {
      runs += 1;
      if (runs > 1) return { kind: 'done' };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        signal.addEventListener('abort', () => { clearTimeout(timer); reasons.push(signal.reason); resolve(); }, { once: true });
      });
      return { kind: 'done' };
    });
    const { jobId } = await queues.enqueue(jobFor(cluster, 'apps/Deployment/lease/app', 1));
    await waitFor(() => runs === 1, 5_000, 'the first run');
    // Another party took the lock (as after an expiry and a stalled check elsewhere).
    await redis.set(`${prefix}:${queueNameFor(cluster)}:${jobId}:lock`, 'someone-else');
    await waitFor(() => reasons.length === 1, 3_000, 'the signal to abort');
    expect(reasons[0]).toBeInstanceOf(JobAbortedError);
    expect((reasons[0] as JobAbortedError).abortCause).toBe('lease-lost');
    await redis.del(`${prefix}:${queueNameFor(cluster)}:${jobId}:lock`);
    await waitFor(() => runs === 2, 5_000, 'the job to run again after its lock expired');
  });
});
