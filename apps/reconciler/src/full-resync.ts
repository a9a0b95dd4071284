import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GitSource } from '@tidemark/git-source';
import { readSourceStatus } from '@tidemark/poller';
import type { ReconcileQueues } from '@tidemark/queue';
import { jobsForResync } from './fan-out';

export interface FullResyncOptions {
  redis: Redis;
  keyPrefix: string;
  sources: ReadonlyMap<string, GitSource>;
  clusters: readonly string[];
  queues: ReconcileQueues;
  intervalMs: number;
  log: Logger;
}

/**
 * startFullResync re-enqueues every object of every source at its last delivered revision on
 * an interval, so queue state lost with Redis is rebuilt from Git. Deduplication in the queue
 * makes it cheap for objects that already have a job.
 */
export function startFullResync(options: FullResyncOptions): { stop(): void; runOnce(): Promise<number> } {
  const runOnce = async () => {
    let enqueued = 0;
    for (const [name, source] of options.sources) {
      const { revision } = await readSourceStatus(options.redis, options.keyPrefix, name);
      if (!revision) continue;
      const listing = await source.listObjects(revision);
      for (const job of jobsForResync(name, revision, listing.objects.map((object) => object.objectKey), options.clusters)) {
        await options.queues.enqueue(job);
        enqueued += 1;
      }
    }
    options.log.info({ enqueued }, 'full resync enqueued every object from Git');
    return enqueued;
  };
  const timer = setInterval(() => void runOnce().catch((error: unknown) => options.log.warn({ err: String(error) }, 'full resync failed')), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), runOnce };
}
