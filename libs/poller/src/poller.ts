import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { RecordKeys, RedisLease, duplicateClient, sourceHeadMessage } from '@tidemark/contracts';
import type { AnnouncedPush, PollResult } from '@tidemark/git-source';
import { SourceRunner, type PolledSource } from './source-runner';
import type { RedisClient } from '@tidemark/contracts';
import { noTracing, type TraceSpan, type Tracer } from '@tidemark/tracing';

export interface PollerOptions {
  /** A connection the app owns; the poller duplicates it once for its trigger subscription. */
  redis: RedisClient;
  /** The sources to poll from the start (config-file sources); `add` and `remove` change the set later. @defaultValue [] */
  sources?: readonly PolledSource[];
  /**
   * Takes a poll's changes (the reconciler turns them into queue jobs, each carrying `span`'s trace
   * context). A throw retries them next poll.
   */
  onChanges(result: PollResult, span: TraceSpan): Promise<void>;
  /** Each poll is a span: a child of the webhook's that triggered it, or the start of a trace. @defaultValue noTracing */
  tracer?: Tracer;
  /** Called with every poll or lease failure, for logging; they are also recorded in the status hash. */
  onError?(source: string, error: unknown): void;
  /** Called by the leader after each poll is recorded (the Source controller mirrors it to the Source's status). */
  onRecorded?(source: string): void;
  /** The deployment's key prefix (see RecordKeys). @defaultValue 'tidemark' */
  prefix?: string;
  /** Lease time: a dead leader's sources are taken over within 1.2 times this. @defaultValue 30000 */
  leaseTtlMs?: number;
  /** This replica's id in leases and status. @defaultValue `${hostname()}:${process.pid}:<random>` */
  owner?: string;
  /** @defaultValue Math.random */
  random?: () => number;
  /**
   * After a failed poll (a fetch, or onChanges throwing), the next comes after this, doubling per
   * failure in a row up to a minute, instead of a whole interval later. @defaultValue 1000
   */
  retryBaseMs?: number;
}

/**
 * Poller runs every source on its interval on exactly one replica: the holder of the source's
 * Redis lease. Any replica may receive a webhook; `trigger` publishes it so the leader polls.
 */
export class Poller {
  private readonly runners = new Map<string, SourceRunner>();
  private readonly keys: RecordKeys;
  private readonly ttlMs: number;
  readonly owner: string;
  private subscriber: RedisClient | undefined;
  private tending: NodeJS.Timeout | undefined;

  constructor(private readonly options: PollerOptions) {
    this.keys = new RecordKeys(options.prefix ?? 'tidemark');
    this.ttlMs = options.leaseTtlMs ?? 30_000;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const names = (options.sources ?? []).map((source) => source.name);
    if (new Set(names).size !== names.length) throw new Error(`source names must be unique, got ${names.join(', ')}`);
  }

  async start(): Promise<void> {
    const { redis } = this.options;
    for (const source of this.options.sources ?? []) this.runners.set(source.name, this.runnerFor(source));
    await redis.sadd(this.keys.sourceIndex, ...this.runners.keys()).catch(() => 0);
    const subscriber = duplicateClient(redis);
    this.subscriber = subscriber;
    // It reconnects by itself; a trigger missed meanwhile is covered by the next interval's poll.
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, source: string) => {
      const runner = this.runners.get(source);
      if (channel === this.releasedChannel) void runner?.tend();
      else runner?.trigger();
    });
    await subscriber.subscribe(this.triggerChannel, this.releasedChannel);
    await this.tend();
    // Renew well inside the lease time, and let followers notice a free lease soon after expiry.
    this.tending = setInterval(() => void this.tend(), Math.max(50, Math.floor(this.ttlMs / 5)));
  }

  /**
   * add starts polling a source, or replaces the runner of a source with the same name (a changed
   * spec): the old runner stops and gives up its lease first, so two never poll one source.
   * `fromScratch` forgets the delivered revision, for a spec that changed what the source reads.
   */
  async add(source: PolledSource, options: { fromScratch?: boolean } = {}): Promise<void> {
    await this.remove(source.name);
    // A changed spec (another path, ref or URL) is diffed from nothing: every object it has or had is routed again.
    if (options.fromScratch) await this.options.redis.hdel(this.keys.sourceStatus(source.name), 'revision', 'head');
    const runner = this.runnerFor(source);
    this.runners.set(source.name, runner);
    await this.options.redis.sadd(this.keys.sourceIndex, source.name);
    if (this.subscriber) await runner.tend();
  }

  /** remove stops polling a source on this replica and releases its lease; false when it was not polled. */
  async remove(name: string): Promise<boolean> {
    const runner = this.runners.get(name);
    if (!runner) return false;
    this.runners.delete(name);
    await runner.stop();
    return true;
  }

  /** forget deletes a source's records (status, commits) and its name from the index: it is gone for good. */
  async forget(name: string): Promise<void> {
    await this.options.redis.multi().srem(this.keys.sourceIndex, name).del(this.keys.sourceStatus(name), this.keys.sourceCommits(name)).exec();
  }

  /** has tells whether this replica runs a source (as leader or follower). */
  has(name: string): boolean {
    return this.runners.has(name);
  }

  /**
   * trigger asks for an immediate poll of a source, wherever its leader runs; false for an unknown
   * source. On the leader, the poll's span is a child of `parent` (the webhook's); a trigger passed on
   * to another replica starts a trace of its own there.
   */
  async trigger(source: string, parent?: TraceSpan, announced?: AnnouncedPush): Promise<boolean> {
    const runner = this.runners.get(source);
    if (!runner) return false;
    if (runner.isLeader) runner.trigger(parent, announced);
    else await this.options.redis.publish(this.triggerChannel, source);
    return true;
  }

  /**
   * pushed is trigger for a push's webhook: it also announces on RecordKeys.sourceHeads that the
   * source may have moved, so agents fetch its ref while the leader polls and routes. On the
   * leader, the poll asks for the `announced` commit's objects beside its ref discovery.
   */
  async pushed(source: string, parent?: TraceSpan, announced?: AnnouncedPush): Promise<boolean> {
    if (!this.runners.has(source)) return false;
    void this.options.redis.publish(this.keys.sourceHeads, sourceHeadMessage({ source })).catch(() => 0);
    return this.trigger(source, parent, announced);
  }

  isLeader(source: string): boolean {
    return this.runners.get(source)?.isLeader ?? false;
  }

  /** stop ends polling, waits for running polls, and releases this replica's leases. */
  async stop(): Promise<void> {
    clearInterval(this.tending);
    const led = [...this.runners].filter(([, runner]) => runner.isLeader).map(([name]) => name);
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
    this.runners.clear();
    // Tell the other replicas, so one takes over now rather than at its next lease check.
    await Promise.all(led.map((name) => this.options.redis.publish(this.releasedChannel, name).catch(() => 0)));
    await this.subscriber?.quit().catch(() => undefined);
    this.subscriber = undefined;
  }

  private runnerFor(source: PolledSource): SourceRunner {
    const lease = new RedisLease(this.options.redis, this.keys.sourceLease(source.name), this.owner, this.ttlMs);
    return new SourceRunner({
      source, lease, redis: this.options.redis,
      statusKey: this.keys.sourceStatus(source.name),
      headsChannel: this.keys.sourceHeads,
      commitsKey: this.keys.sourceCommits(source.name),
      onChanges: this.options.onChanges,
      onError: this.options.onError ?? (() => undefined),
      onRecorded: this.options.onRecorded ?? (() => undefined),
      tracer: this.options.tracer ?? noTracing,
      random: this.options.random ?? Math.random,
      retryBaseMs: this.options.retryBaseMs ?? 1_000,
    });
  }

  private get triggerChannel(): string {
    return this.keys.pollNow;
  }

  private get releasedChannel(): string {
    return this.keys.leaseReleased;
  }

  private async tend(): Promise<void> {
    await Promise.all([...this.runners.values()].map((runner) => runner.tend()));
  }
}
