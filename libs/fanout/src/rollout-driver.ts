import { duplicateClient, messageOf, parseStatusChange, readRolloutRecord, readSourceCommits, readSourceStatus, RedisLease, takeRolloutCommands, type Logger, type ObjectStatus, type ReconcileJob, type RecordKeys, type RedisClient, type RolloutRecord } from '@tidemark/contracts';
import type { ClusterTarget } from '@tidemark/placement';
import { stepRollout, type GateReport, type RolloutEffect, type RolloutEvent } from './rollout-engine';
import { readGate, statusKey } from './rollout-gate';
import type { RolloutPolicy } from './rollout-policy';
import { writeRolloutRecord } from './rollout-record';

/** RolloutDriverOptions are what the driver reads and does; the engine decides. */
export interface RolloutDriverOptions {
  redis: RedisClient;
  keys: RecordKeys;
  policies: ReadonlyMap<string, RolloutPolicy>;
  /**
   * The policy a source rolls out a revision by (tidemark.yaml's, capped Git Rollout: effectivePolicy),
   * undefined when it has none there; it throws on a Rollout that does not read, and the source then
   * does not move. With it, every source of `sources` may roll out. @defaultValue policies.get(source)
   */
  policyAt?(source: string, revision: string): Promise<RolloutPolicy | undefined>;
  /** Every source a Git Rollout may govern (with policyAt). @defaultValue the keys of policies */
  sources?(): Iterable<string>;
  /** The clusters and their labels now: the one place a rollout reads cluster labels from. */
  clusters(): readonly ClusterTarget[];
  /** Every job of a source at a revision on every cluster, as placement says (routePoll with nothing known before). */
  route(source: string, revision: string): Promise<ReconcileJob[]>;
  enqueue(jobs: readonly ReconcileJob[]): Promise<void>;
  statusOf(cluster: string, objectKey: string): Promise<ObjectStatus | undefined>;
  /**
   * Why writes of the source to a cluster wait now (a sync window, a freeze), as every reader shows
   * it; undefined when they may go. A held cluster stops its gate's clock. @defaultValue never held
   */
  holdOf?(cluster: string, source: string): Promise<string | undefined>;
  log: Logger;
  /** Told of every notice (started, wave passed, waiting, halted, aborted, complete). @defaultValue none */
  onNotice?(source: string, notice: Extract<RolloutEffect, { type: 'notice' }>): void;
  /** Told of each record the driver wrote (commit statuses per wave read it); it must not throw. @defaultValue none */
  onRecord?(record: RolloutRecord): void;
  /** Told after each reach's jobs are enqueued, for benches. @defaultValue none */
  onReach?(source: string, clusters: readonly string[], revision: string): void;
  /**
   * Listen to status writes (RecordKeys.statusChanges) and step at once when one is on a cluster a
   * gate waits for, so a passed gate reaches the next batch without waiting for the tick. @defaultValue true
   */
  listen?: boolean;
  /** @defaultValue () => new Date() */
  now?(): Date;
  /** How often the driver looks at gates, soaks and commands. @defaultValue 500 */
  tickMs?: number;
  /** This process's id for the driver's lease. */
  owner: string;
}

/**
 * RolloutDriver is the thin shell around stepRollout: one process (by lease) reads each source's
 * record, the delivered revision, the operators' queued commands and the gate's status records,
 * steps the engine, writes the record (its one writer) and then carries out the effects: it
 * enqueues a reached cluster's jobs and tells the notices. start and stop are explicit.
 */
export class RolloutDriver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly lease: RedisLease;
  private readonly expected = new Map<string, Promise<Map<string, string[]>>>();
  /** The clusters some gate waits for now: a status write on one of them steps the rollouts at once. */
  private gated = new Set<string>();
  private subscriber: RedisClient | undefined;

  constructor(private readonly options: RolloutDriverOptions) {
    const tickMs = options.tickMs ?? 500;
    if (!(Number.isInteger(tickMs) && tickMs >= 10)) throw new RangeError(`The rollout driver's tickMs must be a whole number of ms >= 10; got ${tickMs}.`);
    this.lease = new RedisLease(options.redis, options.keys.rolloutLease, options.owner, Math.max(3_000, tickMs * 6));
  }

  /** has tells whether a source's revisions roll out in waves (its jobs are enqueued by the driver, not the poll). */
  has(source: string): boolean {
    return this.options.policies.has(source);
  }

  /**
   * governs tells whether a source's revision rolls out in waves (the driver enqueues its jobs, not
   * the poll): a policy in tidemark.yaml, or one at that revision in Git. A Rollout that does not
   * read governs too, so nothing of the revision goes out until it is fixed.
   */
  async governs(source: string, revision: string): Promise<boolean> {
    if (this.has(source)) return true;
    if (!this.options.policyAt) return false;
    return (await this.options.policyAt(source, revision).catch(() => true)) !== undefined;
  }

  /** wakeFor steps the rollouts now when `source` has one (a poll delivered or recorded a revision of it). */
  wakeFor(source: string): void {
    if (this.has(source) || this.options.policyAt) this.wake();
  }

  async start(): Promise<void> {
    if (this.timer || (this.options.policies.size === 0 && !this.options.policyAt)) return;
    this.timer = setInterval(() => this.wake(), this.options.tickMs ?? 500);
    this.timer.unref();
    if (this.options.listen ?? true) {
      const subscriber = duplicateClient(this.options.redis);
      subscriber.on('error', () => undefined); // reconnects by itself; the tick covers what it missed
      subscriber.on('message', (_channel: string, message: string) => {
        const change = parseStatusChange(message);
        if (change && this.gated.has(change.cluster)) this.wake();
      });
      this.subscriber = subscriber;
      await subscriber.subscribe(this.options.keys.statusChanges);
    }
    this.wake();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.subscriber) this.subscriber.disconnect();
    this.subscriber = undefined;
    await this.running;
    await this.lease.release().catch(() => false);
  }

  /** wake steps every rollout now (a poll delivered a revision, say); steps never overlap. */
  wake(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick().catch((error: unknown) => this.options.log.warn({ err: messageOf(error) }, 'rollout step failed')).finally(() => {
      this.running = undefined;
      if (this.again && this.timer) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** tick steps each source's rollout once, when this process holds the driver's lease. */
  async tick(): Promise<void> {
    if (!(await this.lease.acquire())) return;
    const started = performance.now();
    const gated = new Set<string>();
    for (const source of this.options.sources?.() ?? this.options.policies.keys()) {
      const record = await this.stepSource(source).catch((error: unknown) => void this.options.log.warn({ source, err: messageOf(error) }, 'rollout step failed for a source'));
      if (record?.phase === 'progressing' && !record.paused) record.batch.forEach((cluster) => gated.add(cluster));
    }
    this.gated = gated;
    // A slow step holds back every rollout's next one: say so, with how long it took.
    const tookMs = Math.round(performance.now() - started);
    if (tookMs > 5_000) this.options.log.warn({ tookMs }, 'a rollout step took more than 5 s');
  }

  /** policyAt is the source's policy at a revision (the config's alone without options.policyAt). */
  private policyAt(source: string, revision: string): Promise<RolloutPolicy | undefined> {
    return this.options.policyAt?.(source, revision) ?? Promise.resolve(this.options.policies.get(source));
  }

  private async stepSource(source: string): Promise<RolloutRecord | undefined> {
    const { redis, keys } = this.options;
    const delivered = (await readSourceStatus(redis, keys, source)).revision;
    // The policy of the revision delivered: a source whose Git no longer holds one is not stepped (its record stays as it was).
    const policy = delivered ? await this.policyAt(source, delivered) : this.options.policies.get(source);
    if (!policy) return undefined;
    const original = await readRolloutRecord(redis, keys, source);
    let record = original;
    const effects: RolloutEffect[] = [];
    const step = (event: RolloutEvent) => {
      const result = stepRollout(record, event, this.now(), policy);
      if (result.refused) this.options.log.warn({ source, refused: result.refused }, 'rollout command refused');
      record = result.state;
      effects.push(...result.effects);
    };
    const clusters = this.options.clusters();
    if (delivered && delivered !== record?.revision) step({ type: 'revision', revision: delivered, clusters, ...(record ? {} : await this.previousOf(source, delivered)) });
    for (const command of await takeRolloutCommands(redis, keys, source)) step({ type: 'command', command });
    if (record) step({ type: 'tick', clusters, ...(await this.gateOf(record)) });
    if (record && record !== original) {
      await writeRolloutRecord(redis, keys, record);
      this.options.onRecord?.(record);
    }
    for (const effect of effects) await this.carryOut(source, effect);
    return record;
  }

  /** previousOf is the revision fetched before `revision`, for a source's first rollout record. */
  private async previousOf(source: string, revision: string): Promise<{ previous?: string }> {
    const commits = await readSourceCommits(this.options.redis, this.options.keys, source);
    const index = commits.findIndex((commit) => commit.revision === revision);
    const previous = index >= 0 ? commits[index + 1]?.revision : undefined;
    return previous ? { previous } : {};
  }

  /** gateOf reads the current batch's gate: each expected object's status record. */
  private async gateOf(record: RolloutRecord): Promise<{ gate?: GateReport }> {
    if (record.phase !== 'progressing' || record.paused || record.batch.length === 0) return {};
    const expected = await this.expectedAt(record.source, record.revision);
    const statuses = new Map<string, ObjectStatus | undefined>();
    for (const cluster of record.batch) {
      for (const objectKey of expected.get(cluster) ?? []) statuses.set(statusKey(cluster, objectKey), await this.options.statusOf(cluster, objectKey));
    }
    const gate = readGate(record.batch, record.revision, expected, statuses);
    const held = gate.ready || gate.failed ? undefined : await this.heldOf(record);
    return { gate: { ...gate, ...(held ? { held } : {}) } };
  }

  /** heldOf is the first cluster of the batch a window or freeze holds for the source, with why. */
  private async heldOf(record: RolloutRecord): Promise<GateReport['held']> {
    if (!this.options.holdOf) return undefined;
    for (const cluster of record.batch) {
      const reason = await this.options.holdOf(cluster, record.source);
      if (reason) return { cluster, reason };
    }
    return undefined;
  }

  /** expectedAt is, per cluster, the objects a revision places there (read once per revision). */
  private expectedAt(source: string, revision: string): Promise<Map<string, string[]>> {
    const key = `${source}@${revision}`;
    let entry = this.expected.get(key);
    if (!entry) {
      entry = this.options.route(source, revision).then((jobs) => {
        const byCluster = new Map<string, string[]>();
        for (const job of jobs) if (job.reason !== 'git-removed') byCluster.set(job.cluster, [...(byCluster.get(job.cluster) ?? []), job.objectKey]);
        return byCluster;
      });
      entry.catch(() => this.expected.delete(key));
      this.expected.set(key, entry);
      while (this.expected.size > 16) this.expected.delete(this.expected.keys().next().value!);
    }
    return entry;
  }

  private async carryOut(source: string, effect: RolloutEffect): Promise<void> {
    if (effect.type === 'notice') {
      this.options.log.info({ source, notice: effect.kind, wave: effect.wave, halt: effect.halt }, effect.message);
      this.options.onNotice?.(source, effect);
      return;
    }
    const clusters = new Set(effect.clusters);
    const jobs = (await this.options.route(source, effect.revision)).filter((job) => clusters.has(job.cluster));
    await this.options.enqueue(jobs);
    this.options.onReach?.(source, effect.clusters, effect.revision);
    this.options.log.info({ source, clusters: effect.clusters, revision: effect.revision, jobs: jobs.length }, 'rollout reached clusters');
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
