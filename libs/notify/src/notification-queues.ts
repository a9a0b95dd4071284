import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { closeRedis, openRedis, redisPrefix, type QueueNamingOptions, type RedisConnection } from '@tidemark/queue';
import { deliver } from './deliver';
import { DeliveryError } from './errors/delivery-error';
import type { NotificationEvent } from './notification-event';
import type { NotificationProvider } from './notify-options';
import { payloadFor } from './payloads/payload-for';

/** NotificationJob is what the queue holds: the event and the alert that chose it; never an address or key. */
export interface NotificationJob {
  event: NotificationEvent;
  alert: { name: string; summary?: string };
}

/** NotificationQueuesOptions say where the queues live and how delivery is reported. */
export interface NotificationQueuesOptions extends QueueNamingOptions {
  connection: RedisConnection;
  providers: readonly NotificationProvider[];
  /** Called once a receiver took a notification. @defaultValue ignore */
  onDelivered?(provider: string, job: NotificationJob): void;
  /** Called on every failed attempt; `final` when no retry follows. @defaultValue ignore */
  onFailed?(provider: string, job: NotificationJob, error: Error, final: boolean): void;
}

const providerNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** notificationQueueName is the BullMQ queue of one provider: `notify.<provider>`. */
export function notificationQueueName(provider: string): string {
  if (!providerNamePattern.test(provider)) throw new RangeError(`The provider name "${provider}" cannot name a queue: use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit.`);
  return `notify.${provider}`;
}

/**
 * NotificationQueues delivers notifications through one BullMQ queue per provider, apart from the
 * reconcile queues: each provider has its own rate limit (BullMQ's limiter), its own retries with
 * exponential backoff (or the receiver's Retry-After), and a failing receiver backs up only its
 * own queue. Nothing connects before start().
 */
export class NotificationQueues {
  private producer: Redis | Cluster | undefined;
  private readonly queues = new Map<string, Queue<NotificationJob>>();
  private readonly workers: Worker<NotificationJob>[] = [];
  private readonly workerClients: (Redis | Cluster)[] = [];

  constructor(private readonly options: NotificationQueuesOptions) {
    redisPrefix(options);
    for (const provider of options.providers) notificationQueueName(provider.name);
  }

  /** start opens the producer side; with `deliver`, also one worker per provider. */
  async start(role: { deliver: boolean }): Promise<void> {
    if (this.producer) return;
    const prefix = redisPrefix(this.options);
    const producer = openRedis(this.options.connection, 'producer');
    producer.on('error', () => undefined); // a failed add reports the outage to the caller
    this.producer = producer;
    for (const provider of this.options.providers) {
      this.queues.set(provider.name, new Queue<NotificationJob>(notificationQueueName(provider.name), { connection: producer, prefix }));
      if (role.deliver) this.startWorker(provider, prefix);
    }
    await producer.ping();
  }

  /**
   * add queues one event for one provider. The job id comes from the event's id, so the same
   * transition queued twice (two alerts naming one provider) is sent once.
   */
  async add(provider: string, job: NotificationJob): Promise<void> {
    const queue = this.queues.get(provider);
    const spec = this.options.providers.find((entry) => entry.name === provider);
    if (!queue || !spec) throw new RangeError(`No notification provider is named "${provider}", or the queues are not started.`);
    await queue.add('notify', job, {
      jobId: job.event.id,
      attempts: spec.retry.attempts,
      backoff: { type: 'receiver' },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
    });
  }

  /** unsent counts one provider's notifications not yet delivered nor dropped (waiting, delayed for a retry, or being sent). */
  async unsent(provider: string): Promise<number> {
    const queue = this.queues.get(provider);
    if (!queue) throw new RangeError(`No notification provider is named "${provider}", or the queues are not started.`);
    const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'waiting-children');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close().catch(() => undefined)));
    await Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => undefined)));
    for (const client of this.workerClients) await closeRedis(client);
    if (this.producer) await closeRedis(this.producer);
    this.workers.length = 0;
    this.workerClients.length = 0;
    this.queues.clear();
    this.producer = undefined;
  }

  private startWorker(provider: NotificationProvider, prefix: string): void {
    const client = openRedis(this.options.connection, 'worker');
    client.on('error', () => undefined); // the worker reconnects by itself
    this.workerClients.push(client);
    const worker = new Worker<NotificationJob>(notificationQueueName(provider.name), (job) => this.send(provider, job), {
      connection: client,
      prefix,
      concurrency: 1,
      limiter: { max: provider.rateLimit.max, duration: provider.rateLimit.durationMs },
      settings: { backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => retryDelay(provider, attemptsMade, error) },
    });
    worker.on('error', () => undefined);
    worker.on('failed', (job, error) => {
      if (!job) return;
      const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
      this.options.onFailed?.(provider.name, job.data, error, final);
    });
    worker.on('completed', (job) => this.options.onDelivered?.(provider.name, job.data));
    this.workers.push(worker);
  }

  private async send(provider: NotificationProvider, job: Job<NotificationJob>): Promise<void> {
    const { event, alert } = checkedJob(job.data);
    try {
      await deliver(provider, JSON.stringify(payloadFor(provider.type, event, alert)));
    } catch (error) {
      if (error instanceof DeliveryError && !error.retry) throw new UnrecoverableError(error.message);
      throw error;
    }
  }
}

/** retryDelay: the receiver's Retry-After when it gave one, else baseMs doubling per attempt, at most an hour. */
function retryDelay(provider: NotificationProvider, attemptsMade: number, error: Error | undefined): number {
  if (error instanceof DeliveryError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  return Math.min(provider.retry.baseMs * 2 ** Math.max(0, attemptsMade - 1), 3_600_000);
}

/** checkedJob refuses a job that is not one of ours (Redis is shared; a hand-made job sends nothing). */
function checkedJob(data: unknown): NotificationJob {
  const job = data as Partial<NotificationJob> | null;
  const event = job?.event;
  if (!event || typeof event.message !== 'string' || typeof event.reason !== 'string' || typeof event.involvedObject?.name !== 'string' || typeof job.alert?.name !== 'string') {
    throw new UnrecoverableError('The job is not a notification: it needs {event: {reason, message, involvedObject}, alert: {name}}.');
  }
  return job as NotificationJob;
}
