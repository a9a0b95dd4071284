import { readSourceStatus, type Logger } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { ReconcileQueues } from '@tidemark/queue';
import { routePoll, type RouteContext } from './route-poll';
import type { RedisClient } from '@tidemark/contracts';

export interface FullResyncOptions {
  redis: RedisClient;
  sources: ReadonlyMap<string, GitSource>;
  route: Omit<RouteContext, 'source'>;
  queues: ReconcileQueues;
  intervalMs: number;
  log: Logger;
}

/**
 * startFullResync re-enqueues every object of every source at its last delivered revision on
 * an interval, so queue state lost with Redis is rebuilt from Git, and objects that left Git
 * while nobody watched are pruned. Deduplication in the queue makes it cheap for objects that
 * already have a job.
 */
export function startFullResync(options: FullResyncOptions): { stop(): void } {
  const runOnce = async () => {
    let enqueued = 0;
    for (const [name, source] of options.sources) {
      const { revision } = await readSourceStatus(options.redis, options.route.statusStore.keys, name);
      if (!revision) continue;
      // A poll result without changes or a previous revision routes every object, as placement says.
      const jobs = await routePoll({ source: name, revision, moved: false, changes: [], errors: [], durationMs: 0, fetchedObjects: 0 }, { ...options.route, source });
      const counts = await options.queues.enqueueAll(jobs);
      enqueued += counts.queued + counts.merged;
    }
    options.log.info({ enqueued }, 'full resync enqueued every object from Git');
    return enqueued;
  };
  const timer = setInterval(() => void runOnce().catch((error: unknown) => options.log.warn({ err: String(error) }, 'full resync failed')), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
