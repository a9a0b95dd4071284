import { readAgentClusters, readAgentHeartbeat, type AgentHeartbeat, type RecordKeys } from '@tidemark/contracts';
import { listPreviews, readClusterFreeze, readClusterHealth, readClusterSeries, readPreviewReport, readSourceCommits, readSourceStatus, messageOf, type ClusterHealth, type ClusterFreeze, type PreviewReport, type ClusterSample, type ObjectStatus, type ReconcileRecord, type SourceCommit, type SourceStatus } from '@tidemark/contracts';
import type { ClusterQueueFigures, ReconcileQueues } from '@tidemark/queue';
import type { RevisionLive, StatusStore } from '@tidemark/status-store';
import { facetsOf, MatchMemo, queryMatrix, RowMemo, type Facets, type MatrixPage, type MatrixRow, type ObjectFilter } from './object-matrix';
import { countStates, emptyCounts, type StateCounts, type StatusTotals, type UnitCounts } from './overview';
import { isPreviewReport } from './preview-view';
import { redactHistory, redactStatus } from './redact';
import { buildResourceTree, ownerUidsOf, type TreeNode } from './resource-tree';
import { ScopedStatusView, type StatusView } from './scoped-view';
import { clusterInScope, inScope, previewInScope, scopeKey, sourceInScope, type TokenScope } from '../auth/token-scope';
import { buildDependencyGraph, dependentsIndex, type DependencyGraph } from './dependency-graph';
import type { RedisClient } from '@tidemark/contracts';

/** QueueAccess is the part of ReconcileQueues the dashboard uses. */
export type QueueAccess = Pick<ReconcileQueues, 'enqueue' | 'figures' | 'retryFailed'>;

export interface SourceRow extends SourceStatus {
  name: string;
  /** Git objects of the source that have a record on some cluster (each counted once). */
  objects: number;
  /** The source's records per cluster, by state. */
  byCluster: Record<string, StateCounts>;
  /** Its render units with their objects per cluster (plain files belong to none). */
  units: UnitCounts[];
}

export interface ClusterRow {
  name: string;
  counts: StateCounts;
  /** Reachability as the reconciler's health checks last saw it. */
  health: ClusterHealth;
  queue?: ClusterQueueFigures;
  /** An operator's freeze: nothing is written to the cluster while it is set. */
  freeze?: ClusterFreeze;
  /** Set when an agent inside the cluster serves it, with its heartbeat while one lives. */
  agent?: { heartbeat?: Omit<AgentHeartbeat, 'cluster'> };
}

/** ObjectView is one object on one cluster, as its page shows it. */
export interface ObjectView {
  status: ObjectStatus;
  history: ReconcileRecord[];
  tree: TreeNode;
  dependencies: DependencyGraph;
}

/** CommitTimeline is a source's fetched revisions with when each reached each cluster. */
export interface CommitTimeline {
  commits: SourceCommit[];
  live: Map<string, Map<string, RevisionLive>>;
}

/** ObjectTimeline is an object's runs per cluster, and the commits of its source (for commit times). */
export interface ObjectTimeline {
  histories: Map<string, ReconcileRecord[]>;
  commits: SourceCommit[];
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
  cache: StatusView;
  /** Set on a scoped token's view: everything it answers is limited to the scope. */
  scope?: TokenScope;
  store: StatusStore;
  queues: QueueAccess;
  /** A normal (not subscriber) connection, for the source and cluster-health records (named by the store's keys). */
  redis: RedisClient;
  /** Sources to show even when no record names them yet. */
  sources?: readonly string[];
  /** Clusters to show even when no record names them yet. */
  clusters?: readonly string[];
}

/** DashboardData answers the pages and the API from the cache, the store and the queues. */
export class DashboardData {
  private totals: { version: number; value: StatusTotals } | undefined;
  private facets: { version: number; value: Facets } | undefined;
  private dependents: { version: number; value: Map<string, ObjectStatus[]> } | undefined;
  /** Keys matching recent filters, valid for one cache version: paging a filter scans once. */
  private readonly matches = new MatchMemo(() => this.options.cache.version);
  /** Rows (and so their markup) kept per object until one of its records changes. */
  private readonly matrixRows = new RowMemo();

  private readonly scoped = new Map<string, DashboardData>();

  constructor(private readonly options: DashboardDataOptions) {}

  /** for is the view a principal may see: everything, or its token's scope (one view per scope, reused). */
  for(principal: { scope?: TokenScope } | undefined): DashboardData {
    const scope = principal?.scope;
    if (!scope || this.options.scope) return this;
    const key = scopeKey(scope);
    let view = this.scoped.get(key);
    if (!view) {
      view = new DashboardData({ ...this.options, scope, cache: new ScopedStatusView(this.options.cache, scope), sources: (this.options.sources ?? []).filter((name) => scope.sources.includes(name)), clusters: (this.options.clusters ?? []).filter((name) => clusterInScope(scope, name)) });
      this.scoped.set(key, view);
    }
    return view;
  }

  /** sees tells whether this view may show a record (always, unscoped). */
  sees(record: { source: string; namespace: string; cluster: string }): boolean {
    return inScope(this.options.scope, record);
  }

  /** version changes whenever a status record changes: what pages compute from the cache is valid for one version. */
  get version(): number {
    return this.options.cache.version;
  }

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
    return queryMatrix({ keys: () => cache.keys(), rows: () => cache.rows(), cellsOf: (key) => cache.cellsOf(key), clusters: () => this.clusterNames() }, filter, this.matches, this.matrixRows);
  }

  /** renderedBy is one object's matrix row with what it rendered, or undefined when this view has no such object. */
  renderedBy(objectKey: string): MatrixRow | undefined {
    const cells = this.options.cache.cellsOf(objectKey);
    return cells ? this.matrixRows.rowOf(objectKey, cells, this.clusterNames()) : undefined;
  }

  objectFacets(): Facets {
    const { cache } = this.options;
    if (this.facets?.version !== cache.version) this.facets = { version: cache.version, value: facetsOf(cache) };
    return this.facets.value;
  }

  /** object reads one record fresh from the store (redacted) with its history and the live children of what it applied. */
  async object(cluster: string, objectKey: string): Promise<ObjectView | undefined> {
    const [status, history] = await Promise.all([this.options.store.get(cluster, objectKey), this.options.store.history(cluster, objectKey)]);
    if (!status || !this.sees(status)) return undefined;
    const children = await this.options.store.liveChildren(cluster, ownerUidsOf(status));
    return { status: redactStatus(status), history: redactHistory(history), tree: buildResourceTree(status, children), dependencies: this.dependencyGraph(status) };
  }

  /** dependencyGraph is what the object waits on and what waits on it, from the cached records of its cluster. */
  dependencyGraph(status: ObjectStatus): DependencyGraph {
    const { cache } = this.options;
    if (this.dependents?.version !== cache.version) this.dependents = { version: cache.version, value: dependentsIndex([...cache.entries()].map((entry) => entry.status)) };
    const index = this.dependents.value;
    return buildDependencyGraph(status, {
      record: (objectKey) => cache.cellsOf(objectKey)?.get(status.cluster)?.status,
      dependents: (objectKey) => index.get(`${status.cluster}|${objectKey}`) ?? [],
    });
  }

  /** otherClusters lists the clusters that also hold a record of the object. */
  clustersOf(objectKey: string): string[] {
    return [...(this.options.cache.cellsOf(objectKey)?.keys() ?? [])].sort();
  }

  async queue(): Promise<QueueView> {
    try {
      const figures = await this.options.queues.figures();
      const { scope } = this.options;
      if (!scope) return { figures };
      // A scoped view shows its own clusters only, and lists only its own failing objects; the counts per state stay the cluster's.
      return { figures: figures.filter((entry) => clusterInScope(scope, entry.cluster)).map((entry) => { const failures = entry.failures.filter((failure) => this.options.cache.cellsOf(failure.objectKey)?.has(entry.cluster)); return { ...entry, failures, failingObjects: failures.length }; }) };
    } catch (error) {
      return { figures: [], error: messageOf(error) };
    }
  }

  /** sources reads each source's poll record and adds its object counts from the status records. */
  async sources(): Promise<SourceRow[]> {
    const totals = this.statusTotals();
    const all = [...new Set([...(this.options.sources ?? []), ...totals.sources])].sort();
    return Promise.all(all.map(async (name) => {
      const counts = totals.bySource[name];
      const record = await readSourceStatus(this.options.redis, this.options.store.keys, name);
      return { name, ...record, objects: counts?.objects ?? 0, byCluster: counts?.byCluster ?? {}, units: counts?.units ?? [] };
    }));
  }

  async clusters(): Promise<{ clusters: ClusterRow[]; queueError?: string }> {
    const totals = this.statusTotals();
    const queue = await this.queue();
    const byName = new Map(queue.figures.map((figures) => [figures.cluster, figures]));
    const names = [...new Set([...this.clusterNames(), ...byName.keys()])].sort();
    const health = await Promise.all(names.map((name) => readClusterHealth(this.options.redis, this.options.store.keys, name)));
    const freezes = await Promise.all(names.map((name) => readClusterFreeze(this.options.redis, this.options.store.keys, name)));
    const agents = await agentsOf(this.options.redis, this.options.store.keys, names);
    const clusters = names.map((name, index) => {
      const row: ClusterRow = { name, counts: totals.byCluster[name] ?? emptyCounts(), health: health[index]! };
      if (freezes[index]) row.freeze = freezes[index];
      if (agents[index]) row.agent = agents[index];
      const figures = byName.get(name);
      if (figures) row.queue = figures;
      return row;
    });
    return queue.error ? { clusters, queueError: queue.error } : { clusters };
  }

  /** source is one source's row, or undefined when no record or setting names it. */
  async source(name: string): Promise<SourceRow | undefined> {
    if (!sourceInScope(this.options.scope, name, this.statusTotals().bySource[name] !== undefined)) return undefined;
    const known = (this.options.sources ?? []).includes(name) || this.statusTotals().bySource[name] !== undefined;
    const record = await readSourceStatus(this.options.redis, this.options.store.keys, name);
    if (!known && Object.keys(record).length === 0) return undefined;
    const counts = this.statusTotals().bySource[name];
    return { name, ...record, objects: counts?.objects ?? 0, byCluster: counts?.byCluster ?? {}, units: counts?.units ?? [] };
  }

  /** clusterSeries is a cluster's recent samples (queue depth, run durations, failed runs per interval), oldest first. */
  async clusterSeries(cluster: string): Promise<ClusterSample[]> {
    if (!clusterInScope(this.options.scope, cluster)) return [];
    return readClusterSeries(this.options.redis, this.options.store.keys, cluster);
  }

  /** sourceTimeline lists the revisions the poller fetched, newest first, with when each went live on each cluster. */
  async sourceTimeline(source: string): Promise<CommitTimeline> {
    const commits = await readSourceCommits(this.options.redis, this.options.store.keys, source);
    const live = await this.options.store.revisionsLive(source, commits.map((commit) => commit.revision));
    return { commits, live };
  }

  /** objectTimeline reads the object's history on every cluster that has it, and its source's commits. */
  async objectTimeline(objectKey: string, source: string): Promise<ObjectTimeline> {
    const clusters = this.clustersOf(objectKey);
    const histories = await Promise.all(clusters.map((cluster) => this.options.store.history(cluster, objectKey)));
    const commits = await readSourceCommits(this.options.redis, this.options.store.keys, source);
    return { histories: new Map(clusters.map((cluster, index) => [cluster, redactHistory(histories[index]!)])), commits };
  }

  /** cluster is one cluster's row, or undefined when no record, queue or setting names it. */
  async cluster(name: string): Promise<{ row: ClusterRow; queueError?: string } | undefined> {
    const { clusters, queueError } = await this.clusters();
    const row = clusters.find((entry) => entry.name === name);
    if (!row) return undefined;
    return queueError ? { row, queueError } : { row };
  }

  /** previews lists the stored previews this view may see, newest first, each with its report when the record is readable. */
  async previews(): Promise<Array<{ source: string; ref: string; report?: PreviewReport }>> {
    const listed = (await listPreviews(this.options.redis, this.options.store.keys)).filter((entry) => previewInScope(this.options.scope, entry.source));
    return Promise.all(listed.map(async (entry) => {
      const report = await this.preview(entry.source, entry.ref).catch(() => undefined);
      return report ? { ...entry, report } : entry;
    }));
  }

  /** preview reads one ref's report; undefined when there is none. A record of the wrong shape is an error, not a page. */
  async preview(source: string, ref: string): Promise<PreviewReport | undefined> {
    if (!previewInScope(this.options.scope, source)) return undefined;
    const report: unknown = await readPreviewReport(this.options.redis, this.options.store.keys, source, ref);
    if (report === undefined) return undefined;
    if (!isPreviewReport(report)) throw new Error(`The preview record of ${source} ${ref} does not have the shape of a preview report.`);
    return report;
  }

  async overview(): Promise<Overview> {
    const totals = this.statusTotals();
    const [sources, clusters] = await Promise.all([this.sources(), this.clusters()]);
    const overview: Overview = { counts: totals.all, sources, clusters: clusters.clusters };
    if (clusters.queueError) overview.queueError = clusters.queueError;
    return overview;
  }
}

/** agentsOf says, per cluster, whether an agent serves it (the hub's config, or a live heartbeat) and its heartbeat. */
async function agentsOf(redis: RedisClient, keys: RecordKeys, names: readonly string[]): Promise<(ClusterRow['agent'] | undefined)[]> {
  const declared = new Set(await readAgentClusters(redis, keys));
  return Promise.all(names.map(async (name) => {
    const heartbeat = await readAgentHeartbeat(redis, keys, name);
    if (!heartbeat && !declared.has(name)) return undefined;
    if (!heartbeat) return {};
    const { cluster: _cluster, ...rest } = heartbeat;
    return { heartbeat: rest };
  }));
}
