import type { BackoffOptions } from './backoff';
import type { RedisConnection } from './connection';
import type { QueueNamingOptions } from './queue-names';
import type { ResyncSweepOptions } from './resync-sweeper';

/** ClusterLimits bound how one cluster's queue is worked, across every worker process. */
export interface ClusterLimits {
  /** Jobs running at once for this cluster, all processes together. @defaultValue 10 */
  concurrency?: number;
  /** At most `max` job starts per `durationMs`, all processes together. @defaultValue none */
  rateLimit?: { max: number; durationMs: number };
}

/** ClusterWorkerSpec names a cluster to work on, with its own limits. */
export type ClusterWorkerSpec = { name: string } & ClusterLimits;

/** ReconcileWorkersOptions configure the consumer side: one BullMQ worker per cluster per process. */
export interface ReconcileWorkersOptions extends QueueNamingOptions {
  connection: RedisConnection;
  /** Clusters this process works on, by name or with their own limits. */
  clusters: readonly (string | ClusterWorkerSpec)[];
  /** Limits for clusters given by name only. @defaultValue `{ concurrency: 10 }` */
  defaults?: ClusterLimits;
  /**
   * Jobs one process runs at once per cluster; the cluster's concurrency caps it globally.
   * @defaultValue the cluster's concurrency
   */
  localConcurrency?: number;
  /** Retry delays of transient failures. @defaultValue see BackoffOptions */
  backoff?: BackoffOptions;
  /**
   * How long a job's lock lives without renewal. A worker killed with SIGKILL holds its jobs
   * this long before another worker takes them. @defaultValue 30000
   */
  lockDurationMs?: number;
  /** How often each worker looks for jobs whose lock expired. @defaultValue 15000 */
  stalledIntervalMs?: number;
  /**
   * Times a job may lose its worker (crash, kill) before it is failed as a poison pill.
   * @defaultValue 20
   */
  maxStalledCount?: number;
  /** On close, how long running jobs may take to finish before their signals abort. @defaultValue 20000 */
  drainTimeoutMs?: number;
  /** After aborting, how long handlers get to settle before their jobs are left to lock expiry. @defaultValue 5000 */
  abortGraceMs?: number;
  /**
   * With it, a run that answers `{ kind: 'requeue', resync: true }` (Ready; look again at the resync
   * interval) completes its job and its object waits in the cluster's resync schedule, where this
   * process sweeps it: unchanged objects are rescheduled without a job, others get a `resync` job.
   * @defaultValue none: such runs are delayed jobs like any requeue
   */
  resync?: ResyncSweepOptions;
  /** Receives errors that do not belong to a job's outcome (Redis outages, lock renewals). @defaultValue print to stderr */
  onError?: (error: Error) => void;
}
