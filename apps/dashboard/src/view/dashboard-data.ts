import type { Redis } from 'ioredis';
import { readClusterHealth, readSourceStatus, type ClusterHealth, type ObjectStatus, type ReconcileRecord, type SourceStatus } from '@tidemark/contracts';
import type { ClusterQueueFigures, ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { facetsOf, MatchMemo, queryMatrix, type Facets, type MatrixPage, type ObjectFilter } from './object-matrix';
import { countStates, emptyCounts, type StateCounts, type StatusTotals } from './overview';
import { redactStatus } from './redact';
import type { StatusCache } from './status-cache';

/** QueueAccess is the part of ReconcileQueues the dashboard uses. */
export type QueueAccess = Pick<ReconcileQueues, 'enqueue' | 'figures' | 'retryFailed'>;

export interface SourceRow extends SourceStatus {
  name: string;
}

export interface ClusterRow {
  name: string;
  counts: StateCounts;
  /** Reachability as the reconciler's health checks last saw it. */
  health: ClusterHealth;
  queue?: ClusterQueueFigures;
}

/** QueueView is the queue figures, or why they could not be read. */
export interface QueueView {
  figures: ClusterQueueFigures[];
  error?: string;
}

export interface Overview {
  counts: StateCounts;
  sources: SourceRow[];
  clusters: ClusterRow[];
  queueError?: string;
}

export interface DashboardDataOptions {
  cache: StatusCache;
  store: StatusStore;
  queues: QueueAccess;
  /** A normal (not subscriber) connection, for the source and cluster-health records (named by the store's keys). */
  redis: Redis;
  /** Sources to show even when no record names them yet. */
  sources?: readonly string[];
  /** Clusters to show even when no record names them yet. */
  clusters?: readonly string[];
}

/** DashboardData answers the pages and the API from the cache, the store and the queues. */
export class DashboardData {
  private totals: { version: number; value: StatusTotals } | undefined;
  private facets: { version: number; value: Facets } | undefined;
  /** Keys matching recent filters, valid for one cache version: paging a filter scans once. */
  private readonly matches = new MatchMemo(() => this.options.cache.version);

  constructor(private readonly options: DashboardDataOptions) {}

  clusterNames(): string[] {
    return [...new Set([...(this.options.clusters ?? []), ...this.options.cache.clusters()])].sort();
  }

  statusTotals(): StatusTotals {
    const { cache } = this.options;
    if (this.totals?.version !== cache.version) this.totals = { version: cache.version, value: countStates(cache.entries(), this.clusterNames()) };
    return this.totals.value;
  }

  objects(filter: ObjectFilter): MatrixPage {
    const { cache } = this.options;
    return queryMatrix({ keys: () => cache.keys(), rows: () => cache.rows(), cellsOf: (key) => cache.cellsOf(key), clusters: () => this.clusterNames() }, filter, this.matches);
  }

  objectFacets(): Facets {
    const { cache } = this.options;
    if (this.facets?.version !== cache.version) this.facets = { version: cache.version, value: facetsOf(cache) };
    return this.facets.value;
  }

  /** object reads one record fresh from the store (redacted) with its history. */
  async object(cluster: string, objectKey: string): Promise<{ status: ObjectStatus; history: ReconcileRecord[] } | undefined> {
    const [status, history] = await Promise.all([this.options.store.get(cluster, objectKey), this.options.store.history(cluster, objectKey)]);
    return status ? { status: redactStatus(status), history } : undefined;
  }

  /** otherClusters lists the clusters that also hold a record of the object. */
  clustersOf(objectKey: string): string[] {
    return [...(this.options.cache.cellsOf(objectKey)?.keys() ?? [])].sort();
  }

  async queue(): Promise<QueueView> {
    try {
      return { figures: await this.options.queues.figures() };
    } catch (error) {
      return { figures: [], error: error instanceof Error ? error.message : String(error) };
    }
  }

  async sources(names: readonly string[]): Promise<SourceRow[]> {
    const all = [...new Set([...(this.options.sources ?? []), ...names])].sort();
    return Promise.all(all.map(async (name) => ({ name, ...(await readSourceStatus(this.options.redis, this.options.store.keys, name)) })));
  }

  async clusters(): Promise<{ clusters: ClusterRow[]; queueError?: string }> {
    const totals = this.statusTotals();
    const queue = await this.queue();
    const byName = new Map(queue.figures.map((figures) => [figures.cluster, figures]));
    const names = [...new Set([...this.clusterNames(), ...byName.keys()])].sort();
    const health = await Promise.all(names.map((name) => readClusterHealth(this.options.redis, this.options.store.keys, name)));
    const clusters = names.map((name, index) => {
      const row: ClusterRow = { name, counts: totals.byCluster[name] ?? emptyCounts(), health: health[index]! };
      const figures = byName.get(name);
      if (figures) row.queue = figures;
      return row;
    });
    return queue.error ? { clusters, queueError: queue.error } : { clusters };
  }

  async overview(): Promise<Overview> {
    const totals = this.statusTotals();
    const [sources, clusters] = await Promise.all([this.sources(totals.sources), this.clusters()]);
    const overview: Overview = { counts: totals.all, sources, clusters: clusters.clusters };
    if (clusters.queueError) overview.queueError = clusters.queueError;
    return overview;
  }
}
