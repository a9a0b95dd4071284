import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { Value } from '@sinclair/typebox/value';
import { isReconcileFailure, PreviewJob, previewQueueName, messageOf } from '@tidemark/contracts';
import { closeRedis, endWhenGone, openRedis, type RedisConnection } from './connection';
import { InvalidJobError } from './errors/invalid-job-error';
import { QueueUnavailableError } from './errors/queue-unavailable-error';
import { redisPrefix, type QueueNamingOptions } from './queue-names';

/** PreviewQueueOptions say where the preview queue lives. */
export interface PreviewQueueOptions extends QueueNamingOptions {
  connection: RedisConnection;
}

/** PreviewWorkersOptions add how many previews one process runs at once. */
export interface PreviewWorkersOptions extends PreviewQueueOptions {
  /** Previews run at once in this process: each fetches a ref and dry-runs on every cluster. @defaultValue 1 */
  concurrency?: number;
  /** Called when the handler throws (the preview's record says why; this is for logs). @defaultValue ignore */
  onError?(error: Error, job: PreviewJob): void;
}

/** checkPreviewJob throws InvalidJobError unless a payload is exactly a PreviewJob. */
export function checkPreviewJob(job: unknown): PreviewJob {
  if (Value.Check(PreviewJob, job)) return job;
  const first = Value.Errors(PreviewJob, job).First();
  throw new InvalidJobError(`A preview job carries only {source, ref, revision?, trigger, pullRequest?, requestedAt}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid payload'}.`);
}

/**
 * previewJobId: one waiting job per (source, ref, commit, pull request); a preview asked again
 * while it waits is merged. A pull request's preview is never merged into one without it: Gitea
 * and GitHub send `push` for the branch and then `pull_request` for the same commit, and a merged
 * job would lose the pull request its comment goes to. Parts are joined with `/`, which no source
 * name holds (a Source object's name may hold dots) and BullMQ allows (it refuses `:`).
 */
export function previewJobId(job: Pick<PreviewJob, 'source' | 'ref' | 'revision' | 'pullRequest'>): string {
  const id = `${job.source}/${Buffer.from(job.ref).toString('hex')}/${job.revision ?? 'head'}`;
  return job.pullRequest ? `${id}/pr${job.pullRequest.number}` : id;
}

/**
 * PreviewQueue is the producer side of previews (dashboard, webhook receiver). One queue for all
 * clusters: a preview spans every cluster its objects target, and writes nothing to any.
 */
export class PreviewQueue {
  private client: Redis | Cluster | undefined;
  private queue: Queue<PreviewJob> | undefined;

  constructor(private readonly options: PreviewQueueOptions) {
    redisPrefix(options);
  }

  async start(): Promise<void> {
    if (this.client) return;
    const client = openRedis(this.options.connection, 'producer');
    client.on('error', () => undefined); // failures surface as QueueUnavailableError from enqueue
    this.client = client;
    this.queue = new Queue<PreviewJob>(previewQueueName, { connection: client, prefix: redisPrefix(this.options) });
    await guard('connect to Redis', () => client.ping());
  }

  async close(): Promise<void> {
    const { client, queue } = this;
    this.client = undefined;
    this.queue = undefined;
    await queue?.close().catch(() => undefined);
    if (client) await closeRedis(client);
  }

  /** enqueue asks for a preview; `merged` when the same one already waits. */
  async enqueue(job: PreviewJob): Promise<{ status: 'queued' | 'merged'; jobId: string }> {
    const checked = checkPreviewJob(job);
    const queue = this.queue;
    if (!queue) throw new QueueUnavailableError('The preview queue is not started.');
    const jobId = previewJobId(checked);
    return guard('enqueue a preview', async () => {
      const existing = await queue.getJob(jobId);
      if (existing && !(await existing.isCompleted()) && !(await existing.isFailed())) return { status: 'merged' as const, jobId };
      if (existing) await existing.remove().catch(() => undefined);
      await queue.add('preview', checked, { jobId, removeOnComplete: true, removeOnFail: { count: 100 }, attempts: 3, backoff: { type: 'exponential', delay: 2000 } });
      return { status: 'queued' as const, jobId };
    });
  }
}

/**
 * PreviewWorkers run a handler for each preview job. A payload that is not a PreviewJob fails
 * without running; a handler's error is retried by BullMQ (3 attempts, exponential backoff).
 */
export class PreviewWorkers {
  private client: Redis | Cluster | undefined;
  private worker: Worker<PreviewJob> | undefined;

  constructor(private readonly options: PreviewWorkersOptions) {
    redisPrefix(options);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new InvalidJobError(`preview concurrency must be a whole number of 1 or more; got ${concurrency}.`);
  }

  async start(handler: (job: PreviewJob) => Promise<void>): Promise<void> {
    if (this.worker) return;
    const client = openRedis(this.options.connection, 'worker');
    client.on('error', () => undefined);
    this.client = client;
    this.worker = new Worker<PreviewJob>(previewQueueName, async (job) => handler(unrecoverableUnless(job.data)), {
      connection: client, prefix: redisPrefix(this.options), concurrency: this.options.concurrency ?? 1,
    });
    this.worker.on('failed', (job, error) => {
      if (job) this.options.onError?.(error, job.data);
    });
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    const { client, worker } = this;
    this.client = undefined;
    this.worker = undefined;
    if (client) endWhenGone(client);
    // Force when Redis is gone: a running preview cannot report its result anyway.
    await worker?.close(client?.status !== 'ready');
    if (client) await closeRedis(client);
  }
}

/** unrecoverableUnless: a payload that is not a PreviewJob fails at once; retrying cannot fix it. */
function unrecoverableUnless(data: unknown): PreviewJob {
  try {
    return checkPreviewJob(data);
  } catch (error) {
    throw new UnrecoverableError(messageOf(error));
  }
}

async function guard<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (isReconcileFailure(error)) throw error;
    const message = messageOf(error);
    throw new QueueUnavailableError(`Could not ${what}: ${message}. Redis may be down; retry later.`, { cause: error });
  }
}
