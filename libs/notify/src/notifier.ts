import { randomUUID } from 'node:crypto';
import { parseClusterHealth, parseStatusChange, readClusterFreeze, readSourceStatus, listRolloutSources, readRolloutRecord, RecordKeys, duplicateClient, messageOf, type Logger, type RedisClient } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import { alertSkipReason } from './alert-filter';
import { clusterFreezeFact } from './cluster-freeze-facts';
import { syncWindowFact } from './sync-window-facts';
import { clusterFact } from './cluster-facts';
import type { NotificationEvent } from './notification-event';
import type { NotificationJob } from './notification-queues';
import type { NotificationAlert } from './notify-options';
import { objectFactKeys, objectFacts } from './object-facts';
import { sourceFact } from './source-facts';
import { rolloutFact } from './rollout-facts';
import type { TransitionFact } from './transition-fact';
import { TransitionStore, type Swap } from './transition-store';

/** NotificationSink takes a notification for a provider; NotificationQueues is the real one. */
export interface NotificationSink {
  add(provider: string, job: NotificationJob): Promise<void>;
}

/** NotifierOptions: where the facts are, which alerts to apply, and how often to look. */
export interface NotifierOptions {
  /** A connection the caller owns; the notifier duplicates it for its subscription. */
  redis: RedisClient;
  /** The deployment's record prefix (a hash tag on Redis Cluster), as the status store has it. */
  prefix: string;
  statusStore: StatusStore;
  sink: NotificationSink;
  alerts: readonly NotificationAlert[];
  /** The clusters whose health and objects are watched. */
  clusters: readonly string[];
  /** syncWindowHoldOf says whether sync windows hold a cluster for every source now; without it, windows send nothing. */
  syncWindowHoldOf?(cluster: string): { description: string } | undefined;
  /** How often cluster health and source records are read. @defaultValue 5000 */
  pollIntervalMs?: number;
  /** How often every object record is read again, for announcements missed while away. @defaultValue 60000 */
  sweepIntervalMs?: number;
  log: Logger;
}

/**
 * Notifier turns the facts Tidemark already records into notifications on transitions only:
 * object records as the status store announces them (and a sweep for missed announcements),
 * cluster health and source records as it polls them. A TransitionStore decides what changed,
 * the alerts decide who hears of it, and the sink queues it; nothing here waits for a receiver,
 * so notifying never slows reconciliation. Nothing starts before start().
 */
export class Notifier {
  private readonly store: TransitionStore;
  private readonly keys: RecordKeys;
  private subscriber: RedisClient | undefined;
  private timers: NodeJS.Timeout[] = [];
  private readonly pending = new Set<string>();
  private work: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: NotifierOptions) {
    this.store = new TransitionStore(options.redis, options.prefix);
    this.keys = new RecordKeys(options.prefix);
  }

  async start(): Promise<void> {
    const subscriber = duplicateClient(this.options.redis);
    subscriber.on('error', () => undefined); // reconnects by itself; the sweep covers what it missed
    subscriber.on('message', (_channel: string, message: string) => this.announced(message));
    this.subscriber = subscriber;
    await subscriber.subscribe(this.keys.statusChanges);
    // A periodic look still waiting its turn is not queued again: slow Redis never piles them up.
    const every = (ms: number, task: () => Promise<void>) => {
      let queued = false;
      this.timers.push(setInterval(() => {
        if (queued) return;
        queued = true;
        this.enqueueWork(async () => {
          queued = false;
          await task();
        });
      }, ms));
    };
    every(this.options.pollIntervalMs ?? 5_000, () => this.lookAtClustersAndSources());
    every(this.options.sweepIntervalMs ?? 60_000, () => this.sweepObjects());
    this.enqueueWork(() => this.lookAtClustersAndSources());
    this.enqueueWork(() => this.sweepObjects());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    await this.work;
  }

  /** idle resolves once every announcement and look received so far is handled (for tests and shutdown). */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.work) {
      seen = this.work;
      await seen;
    }
  }

  /** lookAtObject compares one object's record with what was last notified. */
  async lookAtObject(cluster: string, objectKey: string): Promise<void> {
    const status = await this.options.statusStore.get(cluster, objectKey);
    if (status) await this.notify(objectFacts(status));
  }

  private announced(message: string): void {
    const change = parseStatusChange(message);
    if (!change) return;
    if (change.kind === 'deleted') {
      this.enqueueWork(() => this.store.forget(objectFactKeys(change.cluster, change.objectKey)));
      return;
    }
    // Announcements of one object that arrive while it waits are read once.
    const id = `${change.cluster}\n${change.objectKey}`;
    if (this.pending.has(id)) return;
    this.pending.add(id);
    this.enqueueWork(async () => {
      this.pending.delete(id);
      await this.lookAtObject(change.cluster, change.objectKey);
    });
  }

  private enqueueWork(task: () => Promise<void>): void {
    if (this.stopped) return;
    this.work = this.work.then(task).catch((error: unknown) => {
      this.options.log.warn({ err: messageOf(error) }, 'notifications: reading the records failed; the next look tries again');
    });
  }

  private async lookAtClustersAndSources(): Promise<void> {
    const facts: TransitionFact[] = [];
    const { redis } = this.options;
    for (const cluster of this.options.clusters) {
      const fact = clusterFact(parseClusterHealth(cluster, await redis.get(this.keys.clusterHealth(cluster))));
      if (fact) facts.push(fact);
      facts.push(clusterFreezeFact(cluster, await readClusterFreeze(redis, this.keys, cluster), new Date()));
      if (this.options.syncWindowHoldOf) facts.push(syncWindowFact(cluster, this.options.syncWindowHoldOf(cluster), new Date()));
    }
    for (const source of await redis.smembers(this.keys.sourceIndex)) {
      const fact = sourceFact(source, await readSourceStatus(redis, this.keys, source));
      if (fact) facts.push(fact);
    }
    for (const source of await listRolloutSources(redis, this.keys)) {
      // An unreadable record is said where it is read (the dashboard, the jobs that wait); here it is no news.
      const record = await readRolloutRecord(redis, this.keys, source).catch(() => undefined);
      if (record) facts.push(rolloutFact(record));
    }
    await this.notify(facts);
  }

  private async sweepObjects(): Promise<void> {
    for (const cluster of this.options.clusters) {
      const records = await this.options.statusStore.list(cluster);
      await this.notify(records.flatMap((status) => objectFacts(status)));
    }
  }

  private async notify(facts: readonly TransitionFact[]): Promise<void> {
    const byKey = new Map(facts.map((fact) => [fact.key, fact]));
    for (const swap of await this.store.swap(facts)) {
      const draft = byKey.get(swap.key)?.eventFor(swap.previous);
      if (!draft) continue;
      // The id names the queue job: a letter first, so BullMQ never reads it as a number.
      const event: NotificationEvent = { ...draft, id: `n${randomUUID().replaceAll('-', '')}`, timestamp: new Date().toISOString() };
      await this.dispatch(event, swap);
    }
  }

  /** dispatch queues the event once per provider its alerts name; on a queue failure the swap is undone, so a later look sends it. */
  private async dispatch(event: NotificationEvent, swap: Swap): Promise<void> {
    const chosen = new Map<string, NotificationJob['alert']>();
    for (const alert of this.options.alerts) {
      if (alertSkipReason(alert, event) !== undefined) continue;
      for (const provider of alert.providers) if (!chosen.has(provider)) chosen.set(provider, { name: alert.name, ...(alert.summary ? { summary: alert.summary } : {}) });
    }
    try {
      for (const [provider, alert] of chosen) await this.options.sink.add(provider, { event, alert });
    } catch (error) {
      await this.store.undo(swap).catch(() => undefined);
      throw error;
    }
    if (chosen.size > 0) this.options.log.info({ reason: event.reason, severity: event.severity, object: event.involvedObject.objectKey ?? event.involvedObject.name, cluster: event.cluster, providers: [...chosen.keys()] }, 'notification queued');
  }
}
