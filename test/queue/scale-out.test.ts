// Scale-out: three worker processes share the fixture.queues; per-cluster concurrency and rate limits
// hold across all of them, because BullMQ keeps them in each queue's metadata in Redis.
import { describe, expect, inject, it } from 'vitest';
import { probeKeys } from './fixtures/probe';
import { jobFor, killHard, spawnWorker, waitFor, type WorkerProcess, useQueueFixture } from './helpers';

const redisUrl = inject('redisUrl');

describe('three worker processes', () => {
  const fixture = useQueueFixture(redisUrl, ['narrow', 'limited'], async () => { await Promise.all(processes.splice(0).map(killHard)); });
  const processes: WorkerProcess[] = [];

  it('share the work while per-cluster concurrency (2) and rate limit (10 per second) hold across processes', async () => {
    const clusters = [{ name: 'narrow', concurrency: 2 }, { name: 'limited', concurrency: 10, rateLimit: { max: 10, durationMs: 1_000 } }];
    // Each process runs up to 2 narrow and 5 limited jobs at once; only the global limits hold three of them back.
    for (const name of ['p1', 'p2', 'p3']) {
      processes.push(await spawnWorker({ redisUrl, prefix: fixture.prefix, name, workMs: [40, 80], workers: { clusters, localConcurrency: 5 } }));
    }
    const narrow = Array.from({ length: 30 }, (_, index) => jobFor('narrow', `core/ConfigMap/n/cm-${index}`, 1));
    const limited = Array.from({ length: 30 }, (_, index) => jobFor('limited', `core/ConfigMap/l/cm-${index}`, 1));
    const enqueued = Date.now();
    await Promise.all([...narrow, ...limited].map((job) => fixture.queues.enqueue(job)));
    const keys = probeKeys(fixture.prefix);
    await waitFor(async () => (await fixture.redis.hlen(keys.last('narrow'))) === 30 && (await fixture.redis.hlen(keys.last('limited'))) === 30, 20_000, 'all 60 objects');

    expect(Number(await fixture.redis.get(keys.clusterMax('narrow')))).toBe(2);
    const starts = (await fixture.redis.lrange(keys.starts('limited'), 0, -1)).map(Number).sort((a, b) => a - b);
    // 30 starts at 10 per second take at least two full windows after the first ten.
    expect(starts.at(-1)! - enqueued).toBeGreaterThanOrEqual(1_900);
    expect(maxInWindow(starts, 1_000)).toBeLessThanOrEqual(20);
    const doneBy = await fixture.redis.hgetall(keys.doneBy);
    expect(Object.keys(doneBy).sort()).toEqual(['p1', 'p2', 'p3']);
    expect(await fixture.redis.get(keys.overlaps)).toBeNull();
  });
});

/** maxInWindow is the most starts inside any window of `ms` (a fixed-window limiter allows up to 2× max at a boundary). */
function maxInWindow(sorted: number[], ms: number): number {
  let best = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to += 1) {
    while (sorted[to]! - sorted[from]! >= ms) from += 1;
    best = Math.max(best, to - from + 1);
  }
  return best;
}
