import { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { Value } from '@sinclair/typebox/value';
import { isReconcileFailure, jobFlags, ReconcileJob, reconcileJobName, reconcileJobVersion, messageOf, withReason } from '@tidemark/contracts';
import { closeRedis, openRedis } from './connection';
import { InvalidJobError } from './errors/invalid-job-error';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
import { QueueUnavailableError } from './errors/queue-unavailable-error';
import { collectFigures, type ClusterQueueFigures } from './figures';
import { formatJobId, objectKeyOfJobId } from './job-id';
import { parseReconcileJob } from './object-records';
import { ObjectState } from './object-state';
import { cutsDelayShort } from './cuts-delay-short';
import { clusterQueuePrefix, objectStateKeys, queueNameFor, redisPrefix } from './queue-names';
import type { EnqueueAllOptions, EnqueueOptions, EnqueueResult, ReconcileQueuesOptions } from './reconcile-queues-options';

interface ClusterQueue {
  queue: Queue<ReconcileJob, string>;
  state: ObjectState;
}

/** routineResyncPriority is a resync's BullMQ priority: after every job that carries none. */
const routineResyncPriority = 10;

/**
 * ReconcileQueues is the producer side: one BullMQ queue per target cluster, deduplicated per
 * object. Construction only checks options; `start` connects, `close` disconnects.
 */
export class ReconcileQueues {
  private readonly queues = new Map<string, ClusterQueue>();
  private client: Redis | Cluster | undefined;

  constructor(private readonly options: ReconcileQueuesOptions) {
    redisPrefix(options);
    for (const cluster of options.clusters ?? []) queueNameFor(cluster);
    const keep = options.keepFailedJobs ?? 1000;
    if (!Number.isInteger(keep) || keep < 0) throw new InvalidQueueOptionsError(`keepFailedJobs must be a whole number; got ${keep}.`);
  }

  /** start connects to Redis and opens the queues of the known clusters. */
  async start(): Promise<void> {
    if (this.client) return;
    const client = openRedis(this.options.connection, 'producer');
    client.on('error', () => undefined); // failures surface as QueueUnavailableError from each call
    this.client = client;
    for (const cluster of this.options.clusters ?? []) this.queueFor(cluster);
    await guard('connect to Redis', () => client.ping());
  }

  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    await Promise.all([...this.queues.values()].map(({ queue }) => queue.close().catch(() => undefined)));
    this.queues.clear();
    await closeRedis(client);
  }

  /** clusters lists the clusters with a queue in this process. */
  get clusters(): string[] {
    return [...this.queues.keys()];
  }

  /**
   * enqueue asks for one object to be reconciled at a revision. Per (cluster, object) there is
   * at most one job running and one waiting; a newer revision is what the next run reconciles.
   * Throws InvalidJobError for a payload that is not exactly a ReconcileJob, and
   * QueueUnavailableError when Redis does not answer.
   */
  async enqueue(job: ReconcileJob, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    if (!Value.Check(ReconcileJob, job)) {
      const first = Value.Errors(ReconcileJob, job).First();
      throw new InvalidJobError(`A reconcile job carries only {source, revision, cluster, objectKey, reason, traceparent?}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid payload'}.`);
    }
    const delayMs = options.delayMs ?? 0;
    if (!(delayMs >= 0 && Number.isFinite(delayMs))) throw new InvalidJobError(`delayMs must be a finite number of ms >= 0; got ${delayMs}.`);
    const { queue, state } = this.queueForJob(job);
    return guard('enqueue a reconcile job', async () => {
      const slot = await state.writeLatest(job);
      if (slot.kind === 'stalled') return { status: 'stalled' };
      const jobId = formatJobId(job.objectKey);
      // A change must never wait out a resync spread over the interval (see the full resync): it
      // replaces a delayed job that has not run yet even at the same revision (a push racing it).
      const flags = jobFlags(job);
      const replace = cutsDelayShort(job, slot) || (!flags.routine && delayMs === 0 && (await spreadResyncPending(queue, job.objectKey)));
      // A fresh job (a watch event or a person) asks to look now.
      if (flags.fresh) await state.nudge(job.objectKey);
      const added = await queue.add(reconcileJobName(reconcileJobVersion(job)), job, {
        jobId,
        delay: Math.round(delayMs),
        // BullMQ starts jobs without a priority before prioritized ones: a routine resync waits behind
        // changes, wake-ups, drift and people.
        ...(flags.routine ? { priority: routineResyncPriority } : {}),
        deduplication: { id: job.objectKey, keepLastIfActive: true, replace },
        removeOnComplete: true,
        removeOnFail: { count: this.options.keepFailedJobs ?? 1000 },
      });
      if (flags.fresh) await promote(queue, added.id ?? jobId);
      return { status: added.id === jobId ? 'queued' : 'merged', jobId: added.id ?? jobId };
    });
  }

  /**
   * enqueueAll enqueues many jobs with bounded parallelism: the periodic full resync (every
   * object from Git, reason `resync`) and rebuilding after a Redis that lost its data. Merged
   * and stalled objects cost one round trip each. `delayMs` gives each job its start (the full
   * resync spreads its jobs over the interval with it). Returns how many ended up in each state.
   */
  async enqueueAll(jobs: Iterable<ReconcileJob>, options: EnqueueAllOptions = {}): Promise<Record<EnqueueResult['status'], number>> {
    const counts: Record<EnqueueResult['status'], number> = { queued: 0, merged: 0, stalled: 0 };
    const iterator = jobs[Symbol.iterator]();
    const lane = async () => {
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        counts[(await this.enqueue(next.value, { delayMs: options.delayMs?.(next.value) ?? 0 })).status] += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.parallelism ?? 32) }, lane));
    return counts;
  }

  /**
   * unscheduled keeps the routine resyncs whose object the resync schedule does not look at already,
   * and every other job. The full resync asks it: a scheduled object is looked at within the resync
   * interval by its cluster's sweep (ResyncSweeper), which finds a new revision, drift and a due full
   * check as the job would, so its job would only add a BullMQ job per object per cycle.
   */
  async unscheduled(jobs: readonly ReconcileJob[], batchSize = 1000): Promise<ReconcileJob[]> {
    const kept: ReconcileJob[] = jobs.filter((job) => !jobFlags(job).routine);
    const routine = jobs.filter((job) => jobFlags(job).routine);
    const byCluster = new Map<string, ReconcileJob[]>();
    for (const job of routine) (byCluster.get(job.cluster) ?? byCluster.set(job.cluster, []).get(job.cluster)!).push(job);
    for (const clusterJobs of byCluster.values()) {
      const { state } = this.queueForJob(clusterJobs[0]!);
      for (let start = 0; start < clusterJobs.length; start += batchSize) {
        const batch = clusterJobs.slice(start, start + batchSize);
        const scheduled = await guard('read the resync schedule', () => state.scheduled(batch.map((job) => job.objectKey)));
        kept.push(...batch.filter((_, index) => !scheduled[index]));
      }
    }
    return kept;
  }

  /** pause stops every worker process from starting jobs of this cluster (e.g. while it is unhealthy). */
  async pause(cluster: string): Promise<void> {
    const { queue } = this.queueFor(cluster);
    await guard('pause a queue', () => queue.pause());
  }

  async resume(cluster: string): Promise<void> {
    const { queue } = this.queueFor(cluster);
    await guard('resume a queue', () => queue.resume());
  }

  async isPaused(cluster: string): Promise<boolean> {
    const { queue } = this.queueFor(cluster);
    return guard('read a queue', () => queue.isPaused());
  }

  /** figures returns depth per state, wait and processing times, and failures, per cluster. */
  async figures(): Promise<ClusterQueueFigures[]> {
    const client = this.connected();
    const failureLimit = this.options.failureLimit ?? 100;
    return guard('read queue figures', () => Promise.all([...this.queues.entries()].map(([cluster, { queue, state }]) =>
      collectFigures(client, queue, { cluster, keys: state.keys, failureLimit }))));
  }

  /**
   * retryFailed runs failed objects again: those whose job failed and those stalled by a
   * terminal error, all of the cluster or one object. Each is enqueued with reason `manual`,
   * at the newest revision known. Returns how many objects were enqueued.
   */
  async retryFailed(cluster: string, objectKey?: string): Promise<number> {
    const { queue, state } = this.queueFor(cluster);
    const client = this.connected();
    return guard('retry failed jobs', async () => {
      const failed = (await queue.getJobs(['failed'])).filter((job) => objectKey === undefined || objectKeyOfJobId(job.id ?? '') === objectKey);
      // Only objects that are stalled or failing: a key given by name is retried only if it is one of them.
      const stalledKeys = await client.hkeys(state.keys.stalled);
      const failingKeys = objectKey === undefined ? [] : await client.hkeys(state.keys.failures);
      const stalled = objectKey === undefined ? stalledKeys : [...stalledKeys, ...failingKeys].filter((key) => key === objectKey);
      const payloads = new Map<string, ReconcileJob>();
      for (const job of failed) payloads.set(job.data.objectKey, job.data);
      for (const key of stalled) {
        const latest = parseReconcileJob(await client.hget(state.keys.latest, key));
        if (latest) payloads.set(key, latest);
      }
      // A manual enqueue clears the stall marker itself.
      for (const payload of payloads.values()) await this.enqueue(withReason({ ...payload, cluster }, 'manual'));
      await Promise.all(failed.map((job) => job.remove().catch(() => undefined)));
      return payloads.size;
    });
  }

  private queueForJob(job: ReconcileJob): ClusterQueue {
    this.connected();
    try {
      return this.queueFor(job.cluster);
    } catch (error) {
      throw new InvalidJobError(messageOf(error), { cause: error });
    }
  }

  private queueFor(cluster: string): ClusterQueue {
    const existing = this.queues.get(cluster);
    if (existing) return existing;
    const client = this.connected();
    const prefix = clusterQueuePrefix(this.options, cluster);
    const entry: ClusterQueue = {
      queue: new Queue<ReconcileJob, string>(queueNameFor(cluster), { connection: client, prefix }),
      state: new ObjectState(client, objectStateKeys(prefix, cluster)),
    };
    entry.queue.on('error', () => undefined);
    this.queues.set(cluster, entry);
    return entry;
  }

  private connected(): Redis | Cluster {
    if (!this.client) throw new InvalidQueueOptionsError('ReconcileQueues is not started: call start() first.');
    return this.client;
  }
}

/**
 * promote: a job merged into a resync already waiting keeps the resync's priority; whoever asks to
 * look now (a wake-up, drift, a person) takes it to the front. A Git change merged into a resync
 * keeps the resync's place, saving the two reads on every changed object (it runs at the newest
 * revision all the same).
 */
async function promote(queue: Queue<ReconcileJob, string>, jobId: string): Promise<void> {
  const existing = await queue.getJob(jobId);
  if (existing && existing.priority > 0 && (await existing.getState()) === 'prioritized') await existing.changePriority({ priority: 0 });
}

/**
 * spreadResyncPending: the object's pending job is delayed and has never started, which only a
 * resync spread over its interval is (a backoff or a requeue interval belongs to a job that ran).
 */
async function spreadResyncPending(queue: Queue<ReconcileJob, string>, objectKey: string): Promise<boolean> {
  const jobId = await queue.getDeduplicationJobId(objectKey);
  const pending = jobId ? await queue.getJob(jobId) : undefined;
  return !!pending && pending.attemptsStarted === 0 && (pending.opts.delay ?? 0) > 0 && (await pending.isDelayed());
}

/** guard turns Redis and BullMQ failures into QueueUnavailableError; typed failures pass through. */
async function guard<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (isReconcileFailure(error) || error instanceof InvalidQueueOptionsError) throw error;
    const message = messageOf(error);
    throw new QueueUnavailableError(`Could not ${what}: ${message}. Redis may be down; retry later.`, { cause: error });
  }
}
