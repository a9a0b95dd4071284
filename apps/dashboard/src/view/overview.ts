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
  const sources = new Set<string>();
  for (const entry of entries) {
    add(all, entry);
    add((byCluster[entry.status.cluster] ??= emptyCounts()), entry);
    sources.add(entry.status.source);
  }
  return { all, byCluster, sources: [...sources].sort() };
}
