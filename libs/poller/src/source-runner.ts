import type { AnnouncedPush, PollOptions, PollResult } from '@tidemark/git-source';
import { pollDelay, retryDelay } from './poll-delay';
import type { RedisLease } from '@tidemark/contracts';
import { describeRef, recordFailure, recordHead, recordPoll, recordSuspended } from './source-status';
import { sourceHeadMessage, sourceSuspendedField as suspendedField } from '@tidemark/contracts';
import type { RedisClient } from '@tidemark/contracts';
import { inSpan, noSpan, type TraceSpan, type Tracer } from '@tidemark/tracing';

/** The longest wait between retries of a failing poll (the interval, when shorter, bounds it too). */
const maxRetryMs = 60_000;

/** PolledSource is what the poller needs of a source; GitSource fits it. */
export interface PolledSource {
  readonly name: string;
  readonly spec: { readonly intervalMs: number; readonly jitter: number; readonly ref?: Readonly<Record<string, string>> };
  /** Suspended by its declaration (a Source object's spec.suspend): no polls until it changes. */
  readonly suspended?: boolean;
  poll(options?: PollOptions): Promise<PollResult>;
}

export interface SourceRunnerOptions {
  source: PolledSource;
  lease: RedisLease;
  redis: RedisClient;
  statusKey: string;
  /** Where a new head is announced (RecordKeys.sourceHeads), for agents to fetch ahead of their jobs. */
  headsChannel: string;
  /** The source's list of fetched commits. */
  commitsKey: string;
  onChanges(result: PollResult, span: TraceSpan): Promise<void>;
  onError(source: string, error: unknown): void;
  onRecorded(source: string): void;
  random: () => number;
  tracer: Tracer;
  /** The first retry's wait after a failed poll; it doubles per failure in a row, up to the interval and a minute. */
  retryBaseMs: number;
}

/**
 * SourceRunner polls one source while this replica holds its lease. Polls never overlap: a
 * trigger during a poll runs one more poll right after it. The revision is recorded only
 * after onChanges took the changes, so a failed hand-off is retried from the same revision.
 */
export class SourceRunner {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Polls in a row that failed: the next poll comes after retryDelay, not the whole interval. */
  private failures = 0;
  private delivered: string | undefined;
  private stopped = false;
  /** The span of the webhook that asked for the next poll, its parent. */
  private parent: TraceSpan | undefined;
  /** What the webhook that asked for the next poll said the branch points at (unproven). */
  private announced: AnnouncedPush | undefined;

  constructor(private readonly options: SourceRunnerOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** tend renews the lease when held, or tries to take it; called every third of the lease time. */
  async tend(): Promise<void> {
    if (this.stopped) return;
    const { lease } = this.options;
    const held = await (this.leading ? lease.renew() : lease.acquire()).catch((error: unknown) => {
      this.options.onError(this.options.source.name, error);
      return false;
    });
    if (held && !this.leading) {
      // A new leader continues from what the previous one delivered (read before polling can start).
      this.delivered = (await this.options.redis.hget(this.options.statusKey, 'revision').catch(() => null)) ?? undefined;
      this.leading = true;
      this.trigger();
    } else if (!held && this.leading) {
      this.leading = false;
      clearTimeout(this.timer);
    }
  }

  /** trigger polls now when leading (or right after the running poll); that poll's span is a child of `parent`. */
  trigger(parent?: TraceSpan, announced?: AnnouncedPush): void {
    if (!this.leading || this.stopped) return;
    if (parent) this.parent = parent;
    // The latest push's word stands (a wrong one costs only a wasted request: the poll checks it).
    if (announced) this.announced = announced;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pollOnce().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.trigger();
      } else {
        this.schedule();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.leading) {
      this.leading = false;
      await this.options.lease.release().catch((error: unknown) => this.options.onError(this.options.source.name, error));
    }
  }

  private schedule(): void {
    if (!this.leading || this.stopped) return;
    const { intervalMs, jitter } = this.options.source.spec;
    const { random, retryBaseMs } = this.options;
    const interval = pollDelay(intervalMs, jitter, random);
    this.timer = setTimeout(() => this.trigger(), this.failures > 0 ? Math.min(interval, retryDelay(this.failures, retryBaseMs, maxRetryMs, random)) : interval);
  }

  private async pollOnce(): Promise<void> {
    const parent = this.parent;
    const announced = this.announced;
    this.parent = undefined;
    this.announced = undefined;
    const span = this.options.tracer.start('poll', { ...(parent ? { parent } : {}), attributes: { 'tidemark.source': this.options.source.name, 'tidemark.trigger': parent ? 'webhook' : 'interval' } });
    try {
      await this.pollTraced(span, announced);
    } finally {
      span.end();
    }
  }

  private async pollTraced(span: TraceSpan, announced: AnnouncedPush | undefined): Promise<void> {
    const { source, redis, statusKey, lease } = this.options;
    const started = performance.now();
    try {
      // Suspended by its declaration or by an operator (the dashboard's separate flag): no fetch at all.
      if (source.suspended || (await redis.hget(statusKey, suspendedField)) === 'true') {
        await recordSuspended(redis, statusKey, lease.owner);
        this.failures = 0;
        if (this.leading) this.options.onRecorded(source.name);
        return;
      }
      // Always from what was delivered: after a failed first hand-off the source's own last
      // revision is the one not handed on, and diffing from it would find nothing to hand on again.
      // The fetch, and the rendering of the units it changed (in the render sandbox), happen inside poll.
      const result = await inSpan(span, 'fetch', undefined, async (fetch) => {
        const polled = await source.poll({ since: this.delivered ?? null, ...(announced ? { announced } : {}), ...renderToolSpans(fetch, source.name) });
        fetch.set({ 'tidemark.revision': polled.revision, 'tidemark.fetched_objects': polled.fetchedObjects, 'tidemark.render.units_planned': polled.render?.planned, 'tidemark.render.units_rendered': polled.render?.rendered, 'tidemark.render.duration_ms': polled.render ? Math.round(polled.render.durationMs) : undefined });
        return polled;
      });
      span.set({ 'tidemark.revision': result.revision, 'tidemark.changes': result.changes.length });
      // The head is known before its changes are handed on, so an object woken by a watch in
      // the meantime is compared with this revision, never with the one before it.
      if (this.leading) await recordHead(redis, statusKey, result.revision);
      if (this.leading && result.moved) void redis.publish(this.options.headsChannel, sourceHeadMessage({ source: source.name, revision: result.revision })).catch(() => 0);
      if (result.changes.length > 0 || result.moved) await this.options.onChanges(result, span);
      this.delivered = result.revision;
      if (this.leading) await recordPoll(redis, { status: statusKey, commits: this.options.commitsKey }, result, lease.owner, describeRef(source.spec.ref));
      this.failures = 0;
    } catch (error) {
      this.failures += 1;
      span.fail(error);
      this.options.onError(source.name, error);
      await recordFailure(redis, statusKey, error, Math.round(performance.now() - started), lease.owner).catch(() => undefined);
    }
    if (this.leading) this.options.onRecorded(source.name);
  }
}

/**
 * renderToolSpans gives each run of a render tool in the sandbox a span of its own under the
 * poll's fetch (tool, unit folder, revision, cluster), when tracing is on. A unit whose output was
 * kept runs no tool, so has none.
 */
function renderToolSpans(fetch: TraceSpan, source: string): Pick<PollOptions, 'observeRender'> {
  if (fetch === noSpan) return {};
  return {
    observeRender: (run, body) => inSpan(fetch, 'render tool', {
      'tidemark.source': source, 'tidemark.revision': run.revision, 'tidemark.cluster': run.cluster, 'tidemark.render.tool': run.tool, 'tidemark.render.unit': run.folder,
    }, () => body()),
  };
}
