// One job per object: at most one active and one waiting job per key, the newest revision wins,
// and two workers never reconcile the same object at once.
import { describe, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { InvalidJobError, ReconcileWorkers, queueNameFor } from '@tidemark/queue';
import { createProbe, probeKeys } from './fixtures/probe';
import { jobFor, revision, sleep, waitFor, useQueueFixture } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'dedup';

describe('per-object deduplication', () => {
  const fixture = useQueueFixture(redisUrl, [cluster], async () => { for (const stop of stops.splice(0)) await stop(); });
  const stops: (() => Promise<void>)[] = [];

  async function startWorkers(count: number, workMs: [number, number]): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      const records = new Redis(redisUrl);
      const workers = new ReconcileWorkers({ connection: redisUrl, prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 8 }], localConcurrency: 4, lockDurationMs: 5_000, onError: () => undefined });
      await workers.start(createProbe(records, fixture.prefix, { workMs, name: `w${index}` }));
      stops.push(async () => { await workers.close(); records.disconnect(); });
    }
  }

  it('takes 1,000 updates of one object in 10 s with at most 1 active and 1 waiting job at every sample, and applies the last revision last', async () => {
    await startWorkers(2, [5, 30]);
    const queue = new Queue(queueNameFor(cluster), { connection: fixture.redis, prefix: fixture.prefix });
    const hot = 'apps/Deployment/shop/hot';
    const keys = probeKeys(fixture.prefix);
    const samples: { active: number; pending: number }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [active, pending] = await Promise.all([queue.getJobs(['active']), queue.getJobs(['waiting', 'delayed', 'prioritized'])]);
        const mine = (jobs: typeof active) => jobs.filter((job) => job.data.objectKey === hot).length;
        samples.push({ active: mine(active), pending: mine(pending) });
        await sleep(15);
      }
    })();
    const started = Date.now();
    for (let n = 1; n <= 1000; n += 1) {
      await fixture.queues.enqueue(jobFor(cluster, hot, n));
      // Other objects keep the workers' spare concurrency busy, so exclusivity is not an accident of idleness.
      if (n % 50 === 0) await fixture.queues.enqueue(jobFor(cluster, `core/ConfigMap/shop/cold-${n}`, n));
      const due = started + n * 10;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    await waitFor(async () => (await fixture.redis.hget(keys.last(cluster), hot)) === revision(1000), 15_000, 'the last revision to be applied');
    await waitFor(async () => (await queue.getJobCounts('active', 'waiting', 'delayed')).active === 0, 10_000, 'the queue to drain');
    sampling = false;
    await sampler;
    await queue.close();

    expect(samples.length).toBeGreaterThan(200);
    expect(Math.max(...samples.map((sample) => sample.active))).toBe(1);
    expect(Math.max(...samples.map((sample) => sample.pending))).toBeLessThanOrEqual(1);
    expect(await fixture.redis.get(keys.overlaps)).toBeNull();
    const applied = await fixture.redis.lrange(keys.applied({ cluster, objectKey: hot }), 0, -1);
    expect(applied.at(-1)).toBe(revision(1000));
    // Merging is what keeps this cheap: far fewer runs than updates.
    expect(applied.length).toBeLessThan(700);
    expect(new Set(applied).size).toBe(applied.length - countRepeats(applied));
  });

  it('replaces a waiting job\'s revision with a newer one and runs it once; a watch event does not roll the revision back', async () => {
    const key = 'core/ConfigMap/shop/settings';
    expect((await fixture.queues.enqueue(jobFor(cluster, key, 1))).status).toBe('queued');
    expect((await fixture.queues.enqueue(jobFor(cluster, key, 2))).status).toBe('merged');
    expect((await fixture.queues.enqueue(jobFor(cluster, key, 3))).status).toBe('merged');
    // A cluster watch only knows an older revision: it asks to look again, at the newest one.
    expect((await fixture.queues.enqueue(jobFor(cluster, key, 1, 'watch'))).status).toBe('merged');
    const [figures] = await fixture.queues.figures();
    expect(figures?.depth.waiting).toBe(1);
    await startWorkers(1, [0, 0]);
    const keys = probeKeys(fixture.prefix);
    await waitFor(async () => (await fixture.redis.hget(keys.last(cluster), key)) === revision(3), 10_000, 'revision 3 to be applied');
    await sleep(300);
    expect(await fixture.redis.lrange(keys.applied({ cluster, objectKey: key }), 0, -1)).toEqual([revision(3)]);
  });

  it('refuses payloads that are not exactly a ReconcileJob: no bodies, no secrets', async () => {
    const withBody = { ...jobFor(cluster, 'core/Secret/shop/db', 1), body: { data: { password: 'aHVudGVyMg==' } } };
    await expect(fixture.queues.enqueue(withBody)).rejects.toBeInstanceOf(InvalidJobError);
    await expect(fixture.queues.enqueue({ ...jobFor(cluster, 'core/Secret/shop/db', 1), revision: 'main' })).rejects.toThrow(/revision/);
    await expect(fixture.queues.enqueue(jobFor('bad:cluster', 'core/Secret/shop/db', 1))).rejects.toBeInstanceOf(InvalidJobError);
    // Only BullMQ's queue metadata exists: no job, no slot.
    expect((await fixture.redis.keys(`${fixture.prefix}:*`)).filter((key) => !key.endsWith(':meta'))).toEqual([]);
  });
});

/** countRepeats counts consecutive equal revisions (a replayed run), which are harmless. */
function countRepeats(values: string[]): number {
  return values.filter((value, index) => index > 0 && values[index - 1] === value).length;
}
