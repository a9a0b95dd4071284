import type { CachedStatus } from './status-cache';

/** StateCounts counts objects per state; Drifted and Suspended overlap the others. */
export interface StateCounts {
  total: number;
  Ready: number;
  Reconciling: number;
  Waiting: number;
  Stalled: number;
  Failed: number;
  Unknown: number;
  Drifted: number;
  Suspended: number;
}

export interface StatusTotals {
  all: StateCounts;
  byCluster: Record<string, StateCounts>;
  /** Source names that some record names. */
  sources: string[];
  /** Per source: the Git objects it declares that have a record, and their state per cluster. */
  bySource: Record<string, SourceCounts>;
}

/** SourceCounts counts a source's Git objects (each once, whatever the clusters) and its records per cluster. */
export interface SourceCounts {
  objects: number;
  byCluster: Record<string, StateCounts>;
}

export function emptyCounts(): StateCounts {
  return { total: 0, Ready: 0, Reconciling: 0, Waiting: 0, Stalled: 0, Failed: 0, Unknown: 0, Drifted: 0, Suspended: 0 };
}

function add(counts: StateCounts, { cell }: CachedStatus): void {
  counts.total += 1;
  counts[cell.state] += 1;
  if (cell.drifted) counts.Drifted += 1;
  if (cell.suspended) counts.Suspended += 1;
}

/** countStates sums every (cluster, object) record, overall and per cluster. */
export function countStates(entries: Iterable<CachedStatus>, clusters: readonly string[]): StatusTotals {
  const all = emptyCounts();
  const byCluster: Record<string, StateCounts> = {};
  for (const cluster of clusters) byCluster[cluster] = emptyCounts();
  const keysBySource = new Map<string, Set<string>>();
  const bySource: Record<string, SourceCounts> = {};
  for (const entry of entries) {
    const { cluster, source, objectKey } = entry.status;
    add(all, entry);
    add((byCluster[cluster] ??= emptyCounts()), entry);
    const counts = (bySource[source] ??= { objects: 0, byCluster: {} });
    add((counts.byCluster[cluster] ??= emptyCounts()), entry);
    let keys = keysBySource.get(source);
    if (!keys) keysBySource.set(source, (keys = new Set()));
    keys.add(objectKey);
  }
  for (const [source, keys] of keysBySource) bySource[source]!.objects = keys.size;
  return { all, byCluster, sources: [...keysBySource.keys()].sort(), bySource };
}
