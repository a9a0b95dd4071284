import { Queue, type Job } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { ReconcileJob } from '@tidemark/contracts';
import { resolveBackoff } from './backoff';
import { closeRedis, endWhenGone, openRedis } from './connection';
import { DrainableWorker } from './drainable-worker';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
import { LeaseWatch } from './lease-watch';
import { objectKeyOfJobId } from './job-id';
import { ObjectState } from './object-state';
import type { ReconcileHandler } from './outcome';
import { createProcessor } from './process-job';
import { ResyncSchedule } from './resync-schedule';
import { ResyncSweeper } from './resync-sweeper';
import { clusterQueuePrefix, objectStateKeys, queueNameFor, redisPrefix } from './queue-names';
import type { ClusterLimits, ClusterWorkerSpec, ReconcileWorkersOptions } from './reconcile-workers-options';

const defaults = { concurrency: 10, lockDurationMs: 30_000, stalledIntervalMs: 15_000, maxStalledCount: 20, drainTimeoutMs: 20_000, abortGraceMs: 5_000 };

interface ClusterWorker {
  spec: Required<Pick<ClusterWorkerSpec, 'name' | 'concurrency'>> & ClusterLimits;
  worker: DrainableWorker<ReconcileJob, string>;
  state: ObjectState;
  sweeper?: ResyncSweeper;
}

/**
 * ReconcileWorkers run a handler for every job of the clusters they serve. Construction only
 * checks options; `start` connects and `close` drains (see close). Several processes may run
 * the same clusters: the per-object deduplication and the global limits live in Redis.
 */
export class ReconcileWorkers {
  private readonly specs: ClusterWorker['spec'][];
  private readonly leases: LeaseWatch;
  private readonly onError: (error: Error) => void;
  private client: Redis | Cluster | undefined;
  private workers: ClusterWorker[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ReconcileWorkersOptions) {
    redisPrefix(options);
    this.specs = options.clusters.map((entry) => resolveSpec(entry, options.defaults));
    if (this.specs.length === 0) throw new InvalidQueueOptionsError('ReconcileWorkers needs at least one cluster to work on.');
    resolveBackoff(options.backoff);
    const lockDurationMs = options.lockDurationMs ?? defaults.lockDurationMs;
    if (!(lockDurationMs >= 200)) throw new InvalidQueueOptionsError(`lockDurationMs must be at least 200 ms; got ${lockDurationMs}.`);
    this.leases = new LeaseWatch(lockDurationMs);
    this.onError = options.onError ?? ((error) => process.stderr.write(`tidemark queue: ${error.message}\n`));
  }

  /** start connects, writes each cluster's global limits, and begins taking jobs. */
  async start(handler: ReconcileHandler): Promise<void> {
    if (this.client) throw new InvalidQueueOptionsError('ReconcileWorkers.start was called twice.');
    const client = openRedis(this.options.connection, 'worker');
    client.on('error', () => undefined); // reconnects are automatic; workers report failures themselves
    this.client = client;
    await Promise.all(this.specs.map((spec) => writeLimits(client, clusterQueuePrefix(this.options, spec.name), spec)));
    this.leases.start();
    const backoff = resolveBackoff(this.options.backoff);
    this.workers = this.specs.map((spec) => {
      const prefix = clusterQueuePrefix(this.options, spec.name);
      const state = new ObjectState(client, objectStateKeys(prefix, spec.name));
      const removedSlots = new Map<string, string>();
      const resync = this.options.resync;
      const processor = createProcessor({ state, leases: this.leases, removedSlots, handler, resyncSchedule: resync !== undefined, backoff, onError: this.onError });
      const worker = new DrainableWorker<ReconcileJob, string>(queueNameFor(spec.name), processor, {
        connection: client,
        prefix,
        concurrency: Math.min(this.options.localConcurrency ?? spec.concurrency, spec.concurrency),
        lockDuration: this.leases.lockDurationMs,
        stalledInterval: this.options.stalledIntervalMs ?? defaults.stalledIntervalMs,
        maxStalledCount: this.options.maxStalledCount ?? defaults.maxStalledCount,
        removeOnComplete: { count: 0 },
        // After a connection error ("Connection is closed." while a Redis Cluster client refreshes
        // its slots in a failover) BullMQ waits this long before it fetches or completes again; its
        // 15 s default left workers idle well after the new primary served the queue.
        runRetryDelay: 1_000,
      });
      worker.keepLocks(client, this.leases.lockDurationMs);
      this.watch(worker, state);
      worker.on('completed', (job) => {
        const raw = removedSlots.get(job.id ?? '');
        if (raw === undefined) return;
        removedSlots.delete(job.id ?? '');
        void state.deleteLatestIfUnchanged(job.data.objectKey, raw).catch(this.onError);
      });
      const sweeper = resync ? new ResyncSweeper(spec.name, new ResyncSchedule(client, state.keys), resync, this.onError) : undefined;
      sweeper?.start();
      return { spec, worker, state, ...(sweeper ? { sweeper } : {}) };
    });
  }

  /**
   * close drains: no new jobs start; running ones get `drainTimeoutMs` to finish, then their
   * signals abort and jobs that stop are handed back at once; a handler that ignores its
   * signal for `abortGraceMs` more is abandoned, and its job returns when its lock expires.
   */
  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  private async drain(): Promise<void> {
    const client = this.client;
    if (!client) return;
    // Draining needs Redis; when it is gone, the jobs return when their locks expire.
    endWhenGone(client);
    await Promise.all(this.workers.map((entry) => entry.sweeper?.stop()));
    await Promise.all(this.workers.map((entry) => entry.worker.stopTaking(client).catch(() => undefined)));
    const drainTimeoutMs = this.options.drainTimeoutMs ?? defaults.drainTimeoutMs;
    let settled = await this.waitForIdle(drainTimeoutMs);
    if (!settled) {
      this.leases.abortAll('shutdown', 'the worker process is shutting down');
      settled = await this.waitForIdle(this.options.abortGraceMs ?? defaults.abortGraceMs);
    }
    const force = !settled || client.status !== 'ready';
    await Promise.all(this.workers.map((entry) => withTimeout(entry.worker.close(force), 5_000).catch(() => undefined)));
    this.leases.stop();
    await closeRedis(client);
  }

  private async waitForIdle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.leases.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    return this.leases.size === 0;
  }

  private watch(worker: DrainableWorker<ReconcileJob, string>, state: ObjectState): void {
    worker.on('error', (error) => this.onError(error));
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const jobId of jobIds) this.leases.abort(jobId, 'lease-lost', `could not renew the lock of job ${jobId}`);
    });
    worker.on('locksRenewed', ({ jobIds }) => this.leases.renewed(jobIds));
    worker.on('failed', (job, error) => {
      // Jobs BullMQ fails without our processor (stalled too often) still count as failures.
      if (job && error.message.includes('stalled more than allowable limit')) void recordStalledOut(state, job, error.message).catch(this.onError);
    });
  }
}

function resolveSpec(entry: string | ClusterWorkerSpec, fallback: ClusterLimits | undefined): ClusterWorker['spec'] {
  const spec = typeof entry === 'string' ? { name: entry, ...fallback } : { ...fallback, ...entry };
  queueNameFor(spec.name);
  const concurrency = spec.concurrency ?? defaults.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new InvalidQueueOptionsError(`Cluster ${spec.name}: concurrency must be a positive integer; got ${concurrency}.`);
  if (spec.rateLimit && !(spec.rateLimit.max >= 1 && spec.rateLimit.durationMs >= 1)) {
    throw new InvalidQueueOptionsError(`Cluster ${spec.name}: rateLimit needs max >= 1 and durationMs >= 1.`);
  }
  return { ...spec, concurrency };
}

/** writeLimits stores the limits in the queue's meta, where every worker process reads them. */
async function writeLimits(client: Redis | Cluster, prefix: string, spec: ClusterWorker['spec']): Promise<void> {
  const queue = new Queue(queueNameFor(spec.name), { connection: client, prefix });
  try {
    await queue.setGlobalConcurrency(spec.concurrency);
    if (spec.rateLimit) await queue.setGlobalRateLimit(spec.rateLimit.max, spec.rateLimit.durationMs);
    else await queue.removeGlobalRateLimit();
  } finally {
    await queue.close();
  }
}

/** recordStalledOut counts a poison pill as a failure; no run ended, so it writes no stall marker (the pipeline decides "stalled"). */
async function recordStalledOut(state: ObjectState, job: Job<ReconcileJob>, message: string): Promise<void> {
  const objectKey = job.data?.objectKey ?? objectKeyOfJobId(job.id ?? '');
  if (!objectKey) return;
  const record = { objectKey, revision: job.data?.revision ?? '', failures: 1, code: 'QueueStalledOut', message, terminal: true, at: new Date().toISOString() };
  await state.recordFailure(record, 0, undefined);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);
}
