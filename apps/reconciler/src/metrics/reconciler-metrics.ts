import type { KubeClientOptions } from '@tidemark/cluster';
import type { ReconcileJob } from '@tidemark/contracts';
import { readCommitTime, type PollResult } from '@tidemark/git-source';
import type { PipelineObserver, ReconcileObservation } from '@tidemark/pipeline';
import type { PolledSource } from '@tidemark/poller';
import type { ClusterQueueFigures } from '@tidemark/queue';
import type { ClusterCounts, CommitClock } from '@tidemark/status-store';
import { createMetricSet, type ReconcilerMetricSet } from './metric-set';

/** MetricSources are what the gauges read at scrape time, handed in once they are started. */
export interface MetricSources {
  queues: { figures(): Promise<ClusterQueueFigures[]> };
  /** The status store's records by Ready and their drift items, per cluster (a StatusTally: what changed since the last scrape is read, not every record). */
  statusCounts: { counts(clusters: readonly string[]): Promise<Map<string, ClusterCounts>> };
  clusters: readonly string[];
  /** The local object cache of a source, where commit times are read. */
  sourceCacheDir(source: string): string;
}

type ResponseEvent = Parameters<NonNullable<KubeClientOptions['onResponse']>>[0];

/**
 * ReconcilerMetrics turns what the parts report (pipeline runs, polls, API responses, webhooks)
 * into Prometheus metrics. Counters and histograms are fed as things happen; gauges read Redis
 * when scraped. Every hook swallows its own errors: metrics never fail the work they measure.
 */
export class ReconcilerMetrics {
  readonly set: ReconcilerMetricSet = createMetricSet();
  private sources: MetricSources | undefined;

  /** @param clock the commit-to-live clock in Redis; without it, commit-to-live is not measured. */
  constructor(private readonly clock?: CommitClock) {}

  /** start gives the gauges what they read; before it, they report nothing. */
  start(sources: MetricSources): void {
    this.sources = sources;
  }

  readonly observer: PipelineObserver = {
    reconciled: (observation) => this.reconciled(observation),
  };

  /** resyncSwept counts one sweep batch of a cluster's resync schedule. */
  resyncSwept(cluster: string, unchanged: number, changed: number): void {
    if (unchanged > 0) this.set.resyncChecks.inc({ cluster, result: 'unchanged' }, unchanged);
    if (changed > 0) this.set.resyncChecks.inc({ cluster, result: 'changed' }, changed);
  }

  /** kubeObserver is a cluster's onResponse hook for its KubeClient. */
  readonly kubeObserver = (cluster: string): NonNullable<KubeClientOptions['onResponse']> => (event) => {
    const verb = verbOf(event);
    const code = String(event.status);
    this.set.kubeRequests.inc({ cluster, verb, code });
    if (event.status >= 400 || event.status === 0) this.set.kubeRequestErrors.inc({ cluster, verb, code });
    this.set.kubeRequestDuration.observe({ cluster, verb }, event.durationMs / 1000);
  };

  /** instrument wraps a source so every poll is timed and every failure counted. */
  instrument(source: PolledSource): PolledSource {
    const { set, clock } = this;
    return {
      name: source.name,
      spec: source.spec,
      async poll(options) {
        await clock?.pollStarted(source.name).catch(() => undefined);
        const started = performance.now();
        try {
          const result = await source.poll(options);
          // `fetched` when the ref moved, also when a warm at start (or a prefetch) had already fetched its objects.
          set.gitPollDuration.observe({ source: source.name, outcome: result.moved ? 'fetched' : 'unchanged' }, (performance.now() - started) / 1000);
          return result;
        } catch (error) {
          set.gitPollErrors.inc({ source: source.name });
          throw error;
        }
      },
    };
  }

  /** storageMigration records a storage version migration's progress. */
  storageMigration(progress: { cluster: string; crd: string; migrated: number; total: number }): void {
    this.set.storageMigrated.set({ cluster: progress.cluster, crd: progress.crd }, progress.migrated);
    this.set.storageMigrationTotal.set({ cluster: progress.cluster, crd: progress.crd }, progress.total);
  }

  /** gitHostPosted counts one commit status sent (or given up on) for a Git host. */
  gitHostPosted(provider: string, ok: boolean): void {
    this.set.gitHostPosts.inc({ provider, result: ok ? 'ok' : 'failed' });
  }

  /** syncWindowHeld records one look at a cluster's sync windows: whether they hold it, and for how long since the last look. */
  syncWindowHeld(cluster: string, held: boolean, seconds: number): void {
    this.set.syncWindowHolding.set({ cluster }, held ? 1 : 0);
    if (held && seconds > 0) this.set.syncWindowHeldSeconds.inc({ cluster }, seconds);
  }

  /** renderSandbox records whether renderers run isolated (tidemark_render_sandbox_isolated 1) or not (0). */
  renderSandbox(isolated: boolean): void {
    this.set.renderSandboxIsolated.set(isolated ? 1 : 0);
  }

  /** rolloutNotice records a rollout's wave that passed (its duration) or halted. */
  rolloutNotice(source: string, notice: { kind: string; wave?: string; durationMs?: number }): void {
    const wave = notice.wave ?? '';
    if (notice.kind === 'wave-passed' && notice.durationMs !== undefined) this.set.rolloutWaveDuration.observe({ source, wave }, notice.durationMs / 1000);
    if (notice.kind === 'halted') this.set.rolloutsHalted.inc({ source, wave });
  }

  /** webhookArrived notes a push webhook's arrival for the commit-to-live clock of whichever replica polls. */
  webhookArrived(source: string): void {
    void this.clock?.webhookArrived(source).catch(() => undefined);
  }

  /** changesFound starts the commit-to-live clock; call it before the jobs are queued. */
  async changesFound(result: PollResult, jobs: readonly ReconcileJob[]): Promise<void> {
    const clock = this.clock;
    if (!clock) return;
    const cacheDir = this.sources?.sourceCacheDir(result.source);
    // Read only when no webhook announced the change: the clock then starts at the webhook.
    const commitTime = async () => (cacheDir ? readCommitTime(cacheDir, result.revision).catch(() => undefined) : undefined);
    await clock.changesQueued(result.source, jobs, commitTime).catch(() => undefined);
  }

  get contentType(): string {
    return this.set.registry.contentType;
  }

  /** render reads the gauges and returns the exposition text. */
  async render(): Promise<string> {
    await Promise.all([this.readQueues(), this.readStatusStore()]).catch(() => undefined);
    return this.set.registry.metrics();
  }

  private reconciled(observation: ReconcileObservation): void {
    const { cluster, kind, result } = observation;
    this.set.reconcileDuration.observe({ kind, cluster, result }, observation.durationMs / 1000);
    if (observation.driftHealed > 0) this.set.driftHealed.inc({ cluster }, observation.driftHealed);
    // Every Ready run asks, not only the first: a replica killed between writing the status and
    // stopping the clock leaves the object Ready, and the retry on another replica must stop it.
    if (observation.result === 'ready') void this.stopClock(observation);
  }

  private async stopClock(observation: ReconcileObservation): Promise<void> {
    const live = await this.clock?.live(observation).catch(() => undefined);
    if (live) this.set.commitToLive.observe({ cluster: observation.cluster, origin: live.origin }, live.seconds);
  }

  private async readQueues(): Promise<void> {
    if (!this.sources) return;
    for (const figures of await this.sources.queues.figures()) {
      for (const [state, count] of Object.entries(figures.depth)) this.set.queueDepth.set({ cluster: figures.cluster, state }, count);
      this.set.queueWait.set({ cluster: figures.cluster, quantile: '0.5' }, figures.waitMs.p50 / 1000);
      this.set.queueWait.set({ cluster: figures.cluster, quantile: '0.99' }, figures.waitMs.p99 / 1000);
    }
  }

  private async readStatusStore(): Promise<void> {
    if (!this.sources) return;
    for (const [cluster, counts] of await this.sources.statusCounts.counts(this.sources.clusters)) {
      this.set.objects.set({ cluster, ready: 'true' }, counts.ready);
      this.set.objects.set({ cluster, ready: 'false' }, counts.notReady);
      this.set.driftItems.set({ cluster }, counts.drift);
    }
  }
}

function verbOf(event: ResponseEvent): string {
  if (event.apply) return event.dryRun ? 'apply-dry-run' : 'apply';
  return event.method.toLowerCase();
}
