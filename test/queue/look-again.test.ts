// A "look again" (a watch, a drift, a person, a dependency's wake-up) that arrives while the
// object's job is running is not lost: a run that then ends in a long delay (a requeue or a wait)
// runs again at once, not when the delay is over.
import { describe, expect, inject, it } from 'vitest';
import { NotReadyError, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import { ReconcileWorkers } from '@tidemark/queue';
import { jobFor, useQueueFixture, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'again';

describe('look-again requests during a run', () => {
  const stops: (() => Promise<void>)[] = [];
  const fixture = useQueueFixture(redisUrl, [cluster], async () => { for (const stop of stops.splice(0)) await stop(); });

  async function startWorkers(handler: (job: ReconcileJob, run: number) => Promise<ReconcileOutcome>): Promise<ReconcileJob[]> {
    const runs: ReconcileJob[] = [];
    const workers = new ReconcileWorkers({ connection: redisUrl, prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 2 }], onError: () => undefined });
    await workers.start(async (job) => {
      runs.push(job);
      return handler(job, runs.length);
    });
    stops.push(() => workers.close());
    return runs;
  }

  it.each([
    ['requeue', (): Promise<ReconcileOutcome> => Promise.resolve({ kind: 'requeue', afterMs: 600_000 })],
    ['wait', (): Promise<ReconcileOutcome> => Promise.reject(new NotReadyError('DependencyNotReady', 'waiting for Deployment db/postgres.', 600_000))],
  ])('runs again at once after a %s when a watch asked during the run', async (_name, ending) => {
    const key = 'core/ConfigMap/shop/settings';
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => { release = resolve; });
    const runs = await startWorkers(async (_job, run) => {
      if (run === 1) await blocked;
      return ending();
    });
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runs.length === 1, 10_000, 'the first run to start');
    await fixture.queues.enqueue(jobFor(cluster, key, 1, 'watch'));
    release();
    await waitFor(() => runs.length === 2, 10_000, 'the look-again to run the object again');
    expect(runs.map((job) => job.revision)).toEqual([jobFor(cluster, key, 1).revision, jobFor(cluster, key, 1).revision]);
  });

  it('does not run again for a look-again that the run itself already answered', async () => {
    const key = 'core/ConfigMap/shop/quiet';
    const runs = await startWorkers(() => Promise.resolve({ kind: 'requeue', afterMs: 600_000 }));
    await fixture.queues.enqueue(jobFor(cluster, key, 1, 'watch'));
    await waitFor(() => runs.length === 1, 10_000, 'the run');
    await fixture.queues.enqueue(jobFor(cluster, key, 2));
    await waitFor(() => runs.length === 2, 10_000, 'the new revision');
    // Both enqueues were answered by a run; nothing is left to wake it before its delay.
    const delayed = await fixture.redis.zcard(`${fixture.prefix}:reconcile.${cluster}:delayed`);
    expect(delayed).toBe(1);
    expect(runs).toHaveLength(2);
  });
});
