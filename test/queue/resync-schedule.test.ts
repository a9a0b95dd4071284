// The resync schedule: a run that ends Ready ({ kind: 'requeue', resync: true }) completes its job and
// its object waits in the cluster's schedule. The sweeper answers an unchanged object there without
// a job (the handler never runs again), and gives any other a `resync` job; a newer revision asked
// while the object waits runs at once; a failing object leaves the schedule to its retries.
import { describe, expect, inject, it } from 'vitest';
import type { ReconcileJob, ReconcileOutcome } from '@tidemark/contracts';
import { ReconcileWorkers } from '@tidemark/queue';
import { jobFor, sleep, useQueueFixture, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'sweep';
const key = 'core/ConfigMap/shop/settings';
const resync: ReconcileOutcome = { kind: 'requeue', afterMs: 200, resync: true };

describe('the resync schedule', () => {
  const stops: (() => Promise<void>)[] = [];
  const fixture = useQueueFixture(redisUrl, [cluster], async () => { for (const stop of stops.splice(0)) await stop(); });
  const scheduleKey = () => `${fixture.prefix}:reconcile.${cluster}:tm:resync-due`;

  async function startWorkers(handler: (job: ReconcileJob) => ReconcileOutcome, unchanged: (job: ReconcileJob) => boolean): Promise<{ runs: ReconcileJob[]; asked: ReconcileJob[] }> {
    const runs: ReconcileJob[] = [];
    const asked: ReconcileJob[] = [];
    const workers = new ReconcileWorkers({
      connection: redisUrl, prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 2 }], onError: () => undefined,
      resync: {
        intervalMs: 200, sweepMs: 50, claimMs: 5_000,
        unchanged: async (jobs) => { asked.push(...jobs); return jobs.map(unchanged); },
        enqueue: (job) => fixture.queues.enqueue(job),
      },
    });
    await workers.start(async (job) => {
      runs.push(job);
      return handler(job);
    });
    stops.push(() => workers.close());
    return { runs, asked };
  }

  it('answers an unchanged object without a job: the handler runs once, the sweeper looks again and again', async () => {
    const { runs, asked } = await startWorkers(() => resync, () => true);
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => asked.length >= 3, 10_000, 'three look-agains by the sweeper');
    expect(runs).toHaveLength(1);
    expect(asked.every((job) => job.objectKey === key && job.reason === 'resync' && job.revision === jobFor(cluster, key, 1).revision)).toBe(true);
    // No BullMQ job waits for it: it is in the schedule only.
    expect(await fixture.redis.zcard(`${fixture.prefix}:reconcile.${cluster}:delayed`)).toBe(0);
    expect(await fixture.redis.zscore(scheduleKey(), key)).not.toBeNull();
  });

  it('gives an object that may have changed a resync job, whose run puts it back in the schedule', async () => {
    let changed = true;
    const { runs } = await startWorkers(() => resync, () => { const answer = !changed; changed = false; return answer; });
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runs.length === 2, 10_000, 'the resync job to run');
    expect(runs[1]).toMatchObject({ objectKey: key, reason: 'resync' });
    await sleep(600);
    expect(runs).toHaveLength(2);
    expect(await fixture.redis.zscore(scheduleKey(), key)).not.toBeNull();
  });

  it('runs a new revision at once while the object waits, and a failing object leaves the schedule', async () => {
    const { runs } = await startWorkers((job) => {
      if (job.revision === jobFor(cluster, key, 2).revision) throw new Error('the API server said no');
      return resync;
    }, () => true);
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await fixture.redis.zscore(scheduleKey(), key)) !== null, 10_000, 'the object in the schedule');
    await fixture.queues.enqueue(jobFor(cluster, key, 2));
    await waitFor(() => runs.length === 2, 10_000, 'the new revision to run');
    await waitFor(async () => (await fixture.redis.zscore(scheduleKey(), key)) === null, 10_000, 'the failing object to leave the schedule');
  });

  it('leaves the full resync no job to give an object the schedule looks at, and one for an object it does not', async () => {
    await startWorkers(() => resync, () => true);
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await fixture.redis.zscore(scheduleKey(), key)) !== null, 10_000, 'the object in the schedule');
    const other = 'core/ConfigMap/shop/other';
    const fullResync = [jobFor(cluster, key, 1), jobFor(cluster, other, 1)].map((job) => ({ ...job, reason: 'resync' as const }));
    const removal = { ...jobFor(cluster, key, 1), reason: 'git-removed' as const };
    expect((await fixture.queues.unscheduled([...fullResync, removal])).map((job) => `${job.objectKey} ${job.reason}`).sort())
      .toEqual([`${other} resync`, `${key} git-removed`]);
    // Without its slot the sweep has nothing to look at: the full resync's job brings it back.
    await fixture.redis.hdel(`${fixture.prefix}:reconcile.${cluster}:tm:latest`, key);
    expect((await fixture.queues.unscheduled(fullResync)).map((job) => job.objectKey).sort()).toEqual([key, other].sort());
  });
});
