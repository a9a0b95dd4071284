// Each handler outcome maps to queue behaviour: done, requeue after a delay, transient errors
// retried with capped exponential backoff, terminal errors stalled until the revision changes.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { NotReadyError, TerminalError, TransientError, type ReconcileJob } from '@tidemark/contracts';
import { ReconcileQueues, ReconcileWorkers, queueNameFor, type ReconcileHandler, type ReconcileWorkersOptions } from '@tidemark/queue';
import { jobFor, removeKeys, revision, sleep, testPrefix, waitFor } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'outcomes';

interface Run { revision: string; at: number; reason: string }

describe('outcomes', () => {
  let prefix: string;
  let redis: Redis;
  let queues: ReconcileQueues;
  let workers: ReconcileWorkers | undefined;
  let runs: Map<string, Run[]>;

  beforeEach(async () => {
    prefix = testPrefix();
    redis = new Redis(redisUrl);
    runs = new Map();
    queues = new ReconcileQueues({ connection: redisUrl, prefix, clusters: [cluster] });
    await queues.start();
  });

  afterEach(async () => {
    await workers?.close();
    workers = undefined;
    await queues.close();
    await removeKeys(redis, prefix);
    redis.disconnect();
  });

  /** start runs `decide` for each job, after recording the run. */
  async function start(decide: (job: ReconcileJob, run: number) => ReturnType<ReconcileHandler>, options: Partial<ReconcileWorkersOptions> = {}): Promise<void> {
    workers = new ReconcileWorkers({
      connection: redisUrl, prefix, clusters: [{ name: cluster, concurrency: 4 }],
      backoff: { baseMs: 100, factor: 2, maxMs: 400, jitter: 0 }, lockDurationMs: 5_000, onError: () => undefined, ...options,
    });
    await workers.start(async (job) => {
      const list = runs.get(job.objectKey) ?? [];
      list.push({ revision: job.revision, at: Date.now(), reason: job.reason });
      runs.set(job.objectKey, list);
      return decide(job, list.length);
    });
  }
  const runsOf = (key: string) => runs.get(key) ?? [];
  const gaps = (key: string) => runsOf(key).slice(1).map((run, index) => run.at - runsOf(key)[index]!.at);
  const figures = async () => (await queues.figures()).find((entry) => entry.cluster === cluster)!;

  it('done: runs once and reports wait and processing times', async () => {
    await start(async () => { await sleep(30); return { kind: 'done' }; });
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/done', 1));
    await waitFor(async () => (await figures()).processingMs.count === 1, 5_000, 'one finished run');
    await sleep(300);
    expect(runsOf('core/ConfigMap/a/done')).toHaveLength(1);
    const figure = await figures();
    expect(figure.processingMs.max).toBeGreaterThanOrEqual(25);
    expect(figure.waitMs.count).toBe(1);
    expect(figure.failures).toEqual([]);
    expect(figure.depth).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('done for an object removed from Git: forgets its latest revision once the job completed', async () => {
    await start(async () => ({ kind: 'done' }));
    const latest = `${prefix}:${queueNameFor(cluster)}:tm:latest`;
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/kept', 1));
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/removed', 1, 'git-removed'));
    await waitFor(() => runs.size === 2, 5_000, 'both runs');
    await waitFor(async () => (await redis.hexists(latest, 'core/ConfigMap/a/removed')) === 0, 2_000, 'the removed object\'s slot to go');
    expect(await redis.hexists(latest, 'core/ConfigMap/a/kept')).toBe(1);
  });

  it('requeue: runs again after the interval, not before', async () => {
    await start(async (_job, run) => (run < 3 ? { kind: 'requeue', afterMs: 400 } : { kind: 'done' }));
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/periodic', 1));
    await waitFor(() => runsOf('core/ConfigMap/a/periodic').length === 3, 5_000, 'three runs');
    for (const gap of gaps('core/ConfigMap/a/periodic')) expect(gap).toBeGreaterThanOrEqual(390);
    expect((await figures()).depth.delayed).toBe(0);
  });

  it('transient and unknown errors: retried with exponential backoff, capped, then cleared by success', async () => {
    const key = 'apps/Deployment/a/flaky';
    await start(async (_job, run) => {
      if (run === 1) throw new Error('socket hang up');
      if (run <= 5) throw new TransientError('ApplyFailed', `apply failed, attempt ${run}`);
      return { kind: 'done' };
    });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runsOf(key).length === 3, 5_000, 'two retries');
    await waitFor(async () => (await figures()).failures.some((record) => record.failures === 3), 2_000, 'the third failure recorded');
    const failing = (await figures()).failures.find((record) => record.objectKey === key);
    expect(failing).toMatchObject({ failures: 3, code: 'ApplyFailed', terminal: false, message: 'apply failed, attempt 3' });
    await waitFor(() => runsOf(key).length === 6, 5_000, 'the successful sixth run');
    const observed = gaps(key);
    [100, 200, 400, 400, 400].forEach((expected, index) => {
      expect(observed[index]).toBeGreaterThanOrEqual(expected - 10);
      expect(observed[index]).toBeLessThan(expected + 350);
    });
    await waitFor(async () => (await figures()).failures.length === 0, 2_000, 'the failure record to clear');
  });

  it('terminal: fails without retry, stays stalled at that revision, runs again for a new revision or on request', async () => {
    const key = 'tidemark.dev/WebApp/a/invalid';
    await start(async (job) => {
      if (job.revision === revision(1) && job.reason !== 'manual') throw new TerminalError('ValidationFailed', 'spec.replicas must be >= 0');
      return { kind: 'done' };
    });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await figures()).depth.failed === 1, 5_000, 'a failed job');
    const stalled = (await figures()).failures[0];
    expect(stalled).toMatchObject({ objectKey: key, terminal: true, code: 'ValidationFailed', revision: revision(1) });
    expect(await queues.enqueue(jobFor(cluster, key, 1, 'resync'))).toEqual({ status: 'stalled' });
    await sleep(500);
    expect(runsOf(key)).toHaveLength(1);

    expect((await queues.enqueue(jobFor(cluster, key, 2))).status).toBe('queued');
    await waitFor(() => runsOf(key).length === 2, 5_000, 'a run at the new revision');
    expect(runsOf(key)[1]?.revision).toBe(revision(2));

    // An object that never failed or stalled is not "retried": nothing is enqueued for it.
    const healthy = 'tidemark.dev/WebApp/a/healthy';
    await queues.enqueue(jobFor(cluster, healthy, 2));
    await waitFor(() => runsOf(healthy).length === 1, 5_000, 'the healthy object to run');
    expect(await queues.retryFailed(cluster, healthy)).toBe(0);
    await queues.enqueue(jobFor(cluster, 'tidemark.dev/WebApp/a/other', 1));
    const other = 'tidemark.dev/WebApp/a/other';
    await waitFor(async () => (await figures()).depth.failed === 2, 5_000, 'a second failed job');
    expect(await queues.retryFailed(cluster, other)).toBe(1);
    await waitFor(() => runsOf(other).length === 2, 5_000, 'the manual retry');
    expect(runsOf(other)[1]).toMatchObject({ revision: revision(1), reason: 'manual' });
    await waitFor(async () => (await figures()).failures.every((record) => record.objectKey !== other), 2_000, 'the stall to clear');
  });

  it('stalled: the marker is a cache of run outcomes, and no worker skips a job on it alone', async () => {
    const stalledKey = `${prefix}:${queueNameFor(cluster)}:tm:stalled`;
    const key = 'tidemark.dev/WebApp/a/still-stalled';
    // The pipeline's answer for an object stalled at the job's revision: done, still stalled.
    await start(async (job) => (job.objectKey === key ? { kind: 'done', stalled: { code: 'ValidationFailed', message: 'spec.replicas must be >= 0' } } : { kind: 'done' }));
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await redis.hexists(stalledKey, key)) === 1, 5_000, 'the outcome to fill the cache');
    expect(JSON.parse((await redis.hget(stalledKey, key))!)).toMatchObject({ revision: revision(1), code: 'ValidationFailed' });
    expect(await queues.enqueue(jobFor(cluster, key, 1, 'resync'))).toEqual({ status: 'stalled' });
    expect((await figures()).failures).toEqual([]);

    // A marker no run wrote does not stop a job already queued at its revision: the handler decides.
    const other = 'tidemark.dev/WebApp/a/queued-before';
    await queues.enqueue(jobFor(cluster, other, 1), { delayMs: 300 });
    await redis.hset(stalledKey, other, JSON.stringify({ revision: revision(1), code: 'Invalid', message: 'not from a run', at: new Date().toISOString() }));
    await waitFor(() => runsOf(other).length === 1, 5_000, 'the queued job to reach the handler');
    await waitFor(async () => (await redis.hexists(stalledKey, other)) === 0, 2_000, 'the run\'s success to clear the marker');
  });

  it('waiting: a requeue ends a failure streak and runs again after its delay, not counted as a failure', async () => {
    const key = 'apps/Deployment/a/rolling';
    await start(async (_job, run) => {
      if (run === 1) throw new TransientError('ApplyFailed', 'connection reset');
      // The pipeline's answer for an object waiting for a dependency (a not-ready run).
      if (run === 2) return { kind: 'requeue', afterMs: 300 };
      return { kind: 'done' };
    }, { backoff: { baseMs: 20, maxMs: 20, jitter: 0 } });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runsOf(key).length === 2, 5_000, 'the second run');
    await waitFor(async () => (await figures()).failures.length === 0, 2_000, 'the failure streak to end');
    await waitFor(() => runsOf(key).length === 3, 5_000, 'the third run');
    expect(gaps(key)[1]).toBeGreaterThanOrEqual(290);
  });

  it('a thrown NotReadyError is a failure like any other: only a returned requeue waits', async () => {
    const key = 'apps/Deployment/a/thrown';
    await start(async (_job, run) => {
      if (run === 1) throw new NotReadyError('HealthCheckPending', 'waiting for 3 ready replicas', 60_000);
      return { kind: 'done' };
    }, { backoff: { baseMs: 20, maxMs: 20, jitter: 0 } });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runsOf(key).length === 2, 5_000, 'the retry after backoff, not after 60 s');
  });

  it('an always-failing object does not starve the others', async () => {
    await start(async (job) => {
      if (job.objectKey.endsWith('/poison')) throw new TransientError('ApplyFailed', 'always');
      await sleep(10);
      return { kind: 'done' };
    }, { clusters: [{ name: cluster, concurrency: 1 }], backoff: { baseMs: 20, maxMs: 100, jitter: 0 } });
    await queues.enqueue(jobFor(cluster, 'core/ConfigMap/a/poison', 1));
    await sleep(100);
    for (let index = 0; index < 40; index += 1) await queues.enqueue(jobFor(cluster, `core/ConfigMap/a/healthy-${index}`, 1));
    await waitFor(() => [...runs.keys()].filter((key) => key.includes('healthy')).length === 40, 8_000, 'every healthy object');
    expect(runsOf('core/ConfigMap/a/poison').length).toBeGreaterThanOrEqual(2);
  });

  it('a new revision cuts a backoff short; the same revision does not', async () => {
    const key = 'apps/Deployment/a/broken';
    await start(async (job) => {
      if (job.revision === revision(1)) throw new TransientError('ApplyFailed', 'image not found');
      return { kind: 'done' };
    }, { backoff: { baseMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await figures()).depth.delayed === 1, 5_000, 'the backoff');
    expect((await queues.enqueue(jobFor(cluster, key, 1, 'resync'))).status).toBe('merged');
    await sleep(400);
    expect(runsOf(key)).toHaveLength(1);
    expect((await queues.enqueue(jobFor(cluster, key, 2))).status).toBe('queued');
    await waitFor(() => runsOf(key).length === 2, 3_000, 'the new revision to run at once');
    expect(runsOf(key)[1]?.revision).toBe(revision(2));
  });

  it('a revision that arrives while a run ends in requeue is reconciled at once, not after the interval', async () => {
    const key = 'apps/Deployment/a/busy';
    await start(async () => { await sleep(300); return { kind: 'requeue', afterMs: 60_000 }; });
    await queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(() => runsOf(key).length === 1, 3_000, 'the first run');
    expect((await queues.enqueue(jobFor(cluster, key, 2))).status).toBe('merged');
    await waitFor(() => runsOf(key).length === 2, 3_000, 'revision 2 right after the first run');
    expect(runsOf(key)[1]?.revision).toBe(revision(2));
  });

  it('pause holds a cluster\'s jobs in every worker; resume releases them', async () => {
    await start(async () => ({ kind: 'done' }));
    await queues.pause(cluster);
    for (let index = 0; index < 3; index += 1) await queues.enqueue(jobFor(cluster, `core/ConfigMap/a/held-${index}`, 1));
    await sleep(500);
    expect(runs.size).toBe(0);
    expect(await figures()).toMatchObject({ paused: true, depth: { waiting: 3 } });
    await queues.resume(cluster);
    await waitFor(() => runs.size === 3, 5_000, 'the held jobs to run');
  });
});
