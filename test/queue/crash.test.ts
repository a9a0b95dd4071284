// Crash safety with real worker processes: kill -9 in the middle of jobs, repeatedly, loses no
// work; SIGTERM drains (a running job finishes, or is handed back at once if it cannot).
import { describe, expect, inject, it } from 'vitest';
import type { WorkerFixtureConfig } from './fixtures/worker';
import { probeKeys } from './fixtures/probe';
import { jobFor, killHard, revision, sleep, spawnWorker, waitFor, type WorkerProcess, useQueueFixture } from './helpers';

const redisUrl = inject('redisUrl');
const cluster = 'crash';

describe('crash safety', () => {
  const fixture = useQueueFixture(redisUrl, [cluster], async () => { await Promise.all(processes.splice(0).map(killHard)); });
  const processes: WorkerProcess[] = [];

  function config(name: string, workers: Partial<WorkerFixtureConfig['workers']>, workMs: WorkerFixtureConfig['workMs']): WorkerFixtureConfig {
    return { redisUrl, prefix: fixture.prefix, name, workMs, workers: { clusters: [{ name: cluster, concurrency: 6 }], localConcurrency: 3, ...workers } };
  }
  async function spawn(worker: WorkerFixtureConfig): Promise<WorkerProcess> {
    const started = await spawnWorker(worker);
    processes.push(started);
    return started;
  }

  it('kill -9 of worker processes in the middle of jobs, 8 times, loses no work: every object converges', async () => {
    const crashy = (name: string) => config(name, { lockDurationMs: 1_500, stalledIntervalMs: 500, maxStalledCount: 1_000 }, [200, 600]);
    const alive = await Promise.all(['a', 'b', 'c'].map((name) => spawn(crashy(name))));
    const objects = Array.from({ length: 20 }, (_, index) => `apps/Deployment/crash/app-${index}`);
    for (const key of objects) await fixture.queues.enqueue(jobFor(cluster, key, 1));
    const keys = probeKeys(fixture.prefix);
    for (let kill = 0; kill < 8; kill += 1) {
      await sleep(400);
      // New revisions keep arriving while workers die.
      for (const key of objects.filter((_, index) => index % 4 === kill % 4)) await fixture.queues.enqueue(jobFor(cluster, key, 2 + kill));
      const victim = alive.splice(Math.floor(Math.random() * alive.length), 1)[0]!;
      await killHard(victim);
      alive.push(await spawn(crashy(`r${kill}`)));
    }
    const finalRevision = (index: number) => revision(2 + [...Array(8).keys()].filter((kill) => index % 4 === kill % 4).at(-1)!);
    await waitFor(async () => {
      const last = await fixture.redis.hgetall(keys.last(cluster));
      return objects.every((key, index) => last[key] === finalRevision(index));
    }, 30_000, 'every object to reach its final revision');
    expect(await fixture.redis.get(keys.overlaps)).toBeNull();
    // Some runs were cut short by the kills (started, never applied): the test did hit live jobs.
    let started = 0;
    let applied = 0;
    for (const key of objects) {
      started += Number(await fixture.redis.get(keys.runs({ cluster, objectKey: key })));
      applied += await fixture.redis.llen(keys.applied({ cluster, objectKey: key }));
    }
    expect(started).toBeGreaterThan(applied);
    const [figures] = await fixture.queues.figures();
    expect(figures?.depth).toMatchObject({ active: 0, waiting: 0, failed: 0 });
  });

  it('SIGTERM drains: the running job finishes, then the process exits 0', async () => {
    const worker = await spawn(config('slow', { drainTimeoutMs: 10_000 }, 1_500));
    const key = 'apps/Deployment/crash/slow';
    const keys = probeKeys(fixture.prefix);
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await fixture.redis.get(keys.runs({ cluster, objectKey: key }))) === '1', 5_000, 'the job to start');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    // The run takes 1.5 s: it was let finish (its revision is applied) before the process said so and exited.
    expect(worker.output).toContain('drained');
    expect(await fixture.redis.lrange(keys.applied({ cluster, objectKey: key }), 0, -1)).toEqual([revision(1)]);
    const [figures] = await fixture.queues.figures();
    expect(figures?.depth).toMatchObject({ active: 0, waiting: 0, delayed: 0 });
  });

  it('SIGTERM hands back a job that cannot finish in time: another process takes it long before its lock would expire', async () => {
    // A lock of ten minutes: if the job reached the other process by lock expiry (not handed back),
    // the waits below, far shorter, would fail.
    const long = await spawn(config('long', { drainTimeoutMs: 300, abortGraceMs: 2_000, lockDurationMs: 600_000 }, 60_000));
    const key = 'apps/Deployment/crash/long';
    const keys = probeKeys(fixture.prefix);
    await fixture.queues.enqueue(jobFor(cluster, key, 1));
    await waitFor(async () => (await fixture.redis.get(keys.runs({ cluster, objectKey: key }))) === '1', 5_000, 'the job to start');
    await spawn(config('quick', { lockDurationMs: 30_000 }, 50));
    long.child.kill('SIGTERM');
    expect(await long.exited).toBe(0);
    await waitFor(async () => (await fixture.redis.hget(keys.last(cluster), key)) === revision(1), 30_000, `the other process to finish the job (${long.output.join(' | ')})`);
    expect(await fixture.redis.hget(keys.doneBy, 'quick')).toBe('1');
    expect(await fixture.redis.hget(keys.doneBy, 'long')).toBeNull();
  });
});
