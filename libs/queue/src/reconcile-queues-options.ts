import type { ReconcileJob } from '@tidemark/contracts';
import type { RedisConnection } from './connection';
import type { QueueNamingOptions } from './queue-names';

/** ReconcileQueuesOptions configure the producer side (poller, watches, dashboard). */
export interface ReconcileQueuesOptions extends QueueNamingOptions {
  connection: RedisConnection;
  /** Clusters known up front (for figures); others get a queue on their first enqueue. @defaultValue [] */
  clusters?: readonly string[];
  /** Failed jobs kept per cluster for inspection and retryFailed. @defaultValue 1000 */
  keepFailedJobs?: number;
  /** Longest failure list per cluster in figures. @defaultValue 100 */
  failureLimit?: number;
}

/** EnqueueOptions tune one enqueue. */
export interface EnqueueOptions {
  /** Start no earlier than this many ms from now. @defaultValue 0 */
  delayMs?: number;
}

/** EnqueueAllOptions tune enqueueAll. */
export interface EnqueueAllOptions {
  /** Enqueues in flight at once. @defaultValue 32 */
  parallelism?: number;
  /** Each job's start, in ms from now (EnqueueOptions.delayMs). @defaultValue every job at once */
  delayMs?: (job: ReconcileJob) => number;
}

/**
 * EnqueueResult says what became of a job: `queued` (a new BullMQ job, possibly replacing a
 * delayed one), `merged` (a job for the object is already waiting or running and will
 * reconcile this revision), or `stalled` (this revision already failed terminally; enqueue it
 * with reason `manual` or call retryFailed to force a run).
 */
export interface EnqueueResult {
  status: 'queued' | 'merged' | 'stalled';
  jobId?: string;
}
