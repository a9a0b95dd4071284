// The fence: a handler's signal aborts as soon as its worker loses the job's lock, before
// another worker can take the object; the job then runs again elsewhere.
import { describe, expect, inject, it } from 'vitest';
import { JobAbortedError, ReconcileWorkers, queueNameFor } from '@tidemark/queue';
import { jobFor, waitFor, useQueueFixture } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'lease';

describe('lease fence', () => {
  const fixture = useQueueFixture(redisUrl, [cluster], async () => { await workers.close(); });
  let workers: ReconcileWorkers;

  it('aborts the handler when its lock is lost, and the object runs again', async () => {
    const reasons: unknown[] = [];
    let runs = 0;
    workers = new ReconcileWorkers({ connection: redisUrl, prefix: fixture.prefix, clusters: [cluster], lockDurationMs: 1_000, stalledIntervalMs: 500, onError: () => undefined });
    await workers.start(async (_job, signal) => {
      runs += 1;
      if (runs > 1) return { kind: 'done' };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        signal.addEventListener('abort', () => { clearTimeout(timer); reasons.push(signal.reason); resolve(); }, { once: true });
      });
      return { kind: 'done' };
    });
    const { jobId } = await fixture.queues.enqueue(jobFor(cluster, 'apps/Deployment/lease/app', 1));
    await waitFor(() => runs === 1, 5_000, 'the first run');
    // Another party took the lock (as after an expiry and a stalled check elsewhere).
    await fixture.redis.set(`${fixture.prefix}:${queueNameFor(cluster)}:${jobId}:lock`, 'someone-else');
    await waitFor(() => reasons.length === 1, 3_000, 'the signal to abort');
    expect(reasons[0]).toBeInstanceOf(JobAbortedError);
    expect((reasons[0] as JobAbortedError).abortCause).toBe('lease-lost');
    await fixture.redis.del(`${fixture.prefix}:${queueNameFor(cluster)}:${jobId}:lock`);
    await waitFor(() => runs === 2, 5_000, 'the job to run again after its lock expired');
  });
});
