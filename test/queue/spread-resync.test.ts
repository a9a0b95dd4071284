// The full resync spread over its interval, on real Redis: N objects are not N jobs due at once,
// each object starts at its own place in the window, and a push to an object whose resync waits
// there is applied at once, at the resync's revision too (a push racing the resync's enqueue).
import { describe, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import { queueNameFor, ReconcileWorkers } from '@tidemark/queue';
import { spreadDelayMs, spreadResync } from '@tidemark/fanout';
import type { ReconcileJob } from '@tidemark/contracts';
import { jobFor, useQueueFixture, waitFor } from './helpers';

const cluster = 'spread';
let workers: ReconcileWorkers | undefined;
const fixture = useQueueFixture(inject('redisUrl'), [cluster], async () => {
  await workers?.close();
  workers = undefined;
});

async function startWorkers(onRun: (job: ReconcileJob) => void): Promise<void> {
  workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 4 }], onError: () => undefined });
  await workers.start(async (job) => {
    onRun(job);
    return { kind: 'done' };
  });
}

describe('full resync spread over its interval', () => {
  it('makes 300 objects due a tenth of the window at a time, not all at once', async () => {
    const objects = 300;
    const windowMs = 6_000;
    const queue = new Queue(queueNameFor(cluster), { connection: fixture.redis, prefix: fixture.prefix });
    const started = Date.now();
    await fixture.queues.enqueueAll(Array.from({ length: objects }, (_, index) => jobFor(cluster, `core/ConfigMap/app/config-${index}`, 1, 'resync')), { delayMs: spreadResync(windowMs) });
    const enqueuedMs = Date.now() - started;
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed');
    const dueAtOnce = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    // Still the routine resync's low priority once due.
    const delayed = await queue.getJobs(['delayed'], 0, 0);
    expect(delayed[0]?.priority).toBe(10);

    const runs: number[] = [];
    await startWorkers(() => runs.push(Date.now() - started));
    await waitFor(() => runs.length === objects, windowMs + 15_000, 'every spread resync run');
    await queue.close();

    const slices = new Array<number>(10).fill(0);
    for (const at of runs) {
      const slice = Math.min(9, Math.floor(at / (windowMs / 10)));
      slices[slice] = (slices[slice] ?? 0) + 1;
    }
    console.log(`spread resync: ${objects} objects over ${windowMs} ms; enqueued in ${enqueuedMs} ms; due at once after enqueue: ${dueAtOnce}; runs per tenth of the window: ${slices.join(' ')}`);
    // Without spreading all 300 are due at once and run in the first tenth.
    expect(dueAtOnce).toBeLessThanOrEqual(Math.ceil((objects * (enqueuedMs + 200)) / windowMs) + 10);
    expect(Math.max(...slices)).toBeLessThanOrEqual(objects / 4);
    expect(Math.max(...runs)).toBeGreaterThan(windowMs * 0.8);
  });

  it('applies a push to an object at once while its spread resync waits, at a new revision and at the same one', async () => {
    const windowMs = 3_600_000;
    // Two objects whose place in the window is at least ten minutes away.
    const keys = Array.from({ length: 50 }, (_, index) => `apps/Deployment/shop/web-${index}`).filter((key) => spreadDelayMs(cluster, key, windowMs) > 600_000).slice(0, 2);
    await fixture.queues.enqueueAll(keys.map((key) => jobFor(cluster, key, 1, 'resync')), { delayMs: spreadResync(windowMs) });
    const queue = new Queue(queueNameFor(cluster), { connection: fixture.redis, prefix: fixture.prefix });
    expect((await queue.getJobCounts('delayed')).delayed).toBe(2);

    const runs: { objectKey: string; reason: string; revision: string }[] = [];
    await startWorkers((job) => runs.push({ objectKey: job.objectKey, reason: job.reason, revision: job.revision }));
    const pushed = Date.now();
    // A new revision, and the resync's own revision (the push's poll wrote it before the resync read it).
    expect(await fixture.queues.enqueue(jobFor(cluster, keys[0]!, 2, 'git-change'))).toMatchObject({ status: 'queued' });
    expect(await fixture.queues.enqueue(jobFor(cluster, keys[1]!, 1, 'git-change'))).toMatchObject({ status: 'queued' });
    await waitFor(() => runs.length === 2, 5_000, 'both pushes applied while their resyncs wait in the window');
    const appliedMs = Date.now() - pushed;
    await queue.close();
    console.log(`push during a pending spread resync applied in ${appliedMs} ms`);
    expect(runs.map((run) => run.reason)).toEqual(['git-change', 'git-change']);
    expect(runs.find((run) => run.objectKey === keys[0])?.revision).toBe(jobFor(cluster, keys[0]!, 2).revision);
  });
});
