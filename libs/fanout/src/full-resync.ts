import { readSourceStatus, type Logger } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { ReconcileQueues } from '@tidemark/queue';
import { routePoll, type RouteContext } from './route-poll';
import type { RedisClient, ReconcileJob } from '@tidemark/contracts';
import { spreadDelayMs } from './spread-delay';

export interface FullResyncOptions {
  redis: RedisClient;
  sources: ReadonlyMap<string, GitSource>;
  route: Omit<RouteContext, 'source'>;
  queues: ReconcileQueues;
  intervalMs: number;
  /**
   * Window each cycle's jobs are spread over: an object's job starts at a stable offset in it
   * (spreadDelayMs), so N objects are due about N / window at a time, not all at once; 0 starts
   * them all at once. A change to an object never waits for its spread job (ReconcileQueues.enqueue).
   * @defaultValue intervalMs
   */
  spreadMs?: number;
  log: Logger;
}

/**
 * startFullResync re-enqueues every object of every source at its last delivered revision on
 * an interval, so queue state lost with Redis is rebuilt from Git, and objects that left Git
 * while nobody watched are pruned. Deduplication in the queue makes it cheap for objects that
 * already have a job. Each object's job is delayed to its place in the spread window; one lost
 * with Redis is enqueued again next cycle.
 */
export function startFullResync(options: FullResyncOptions): { stop(): void } {
  const spreadMs = options.spreadMs ?? options.intervalMs;
  const delayMs = spreadResync(spreadMs);
  const runOnce = async () => {
    let enqueued = 0;
    let scheduled = 0;
    for (const [name, source] of options.sources) {
      const { revision } = await readSourceStatus(options.redis, options.route.statusStore.keys, name);
      if (!revision) continue;
      // A poll result without changes or a previous revision routes every object, as placement says.
      const routed = await routePoll({ source: name, revision, moved: false, changes: [], errors: [], durationMs: 0, fetchedObjects: 0 }, { ...options.route, source });
      // An object the resync schedule looks at already needs no job (no burst of one per object).
      const jobs = await options.queues.unscheduled(routed);
      scheduled += routed.length - jobs.length;
      const counts = await options.queues.enqueueAll(jobs, { delayMs });
      enqueued += counts.queued + counts.merged;
    }
    options.log.info({ enqueued, scheduled, spreadMs }, 'full resync enqueued every object from Git the resync schedule does not look at, spread over its window');
    return enqueued;
  };
  const timer = setInterval(() => void runOnce().catch((error: unknown) => options.log.warn({ err: String(error) }, 'full resync failed')), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * spreadResync gives a full resync's job its start: its object's place in the window. A removal
 * (an object that left Git while nobody watched) starts at once.
 */
export function spreadResync(windowMs: number): (job: ReconcileJob) => number {
  // Refused when the resync starts, not at its first cycle an hour later.
  if (!(Number.isFinite(windowMs) && windowMs >= 0)) throw new RangeError(`The full resync's spreadMs must be a finite number of ms >= 0; got ${windowMs}.`);
  return (job) => (job.reason === 'resync' ? spreadDelayMs(job.cluster, job.objectKey, windowMs) : 0);
}
