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
  /** Its render units (Kustomize, Helm, …) with their objects' records per cluster; plain files have none. */
  units: UnitCounts[];
}

/** UnitCounts is one render unit of a source: what renders it, its folder, its objects and their state per cluster. */
export interface UnitCounts {
  renderer: string;
  folder: string;
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

type UnitTally = Omit<UnitCounts, 'objects'> & { keys: Set<string> };

function addToUnit(unitsBySource: Map<string, Map<string, UnitTally>>, entry: CachedStatus): void {
  const { renderUnit, source, cluster, objectKey } = entry.status;
  if (!renderUnit) return;
  let units = unitsBySource.get(source);
  if (!units) unitsBySource.set(source, (units = new Map()));
  const id = `${renderUnit.renderer}|${renderUnit.folder}`;
  let unit = units.get(id);
  if (!unit) units.set(id, (unit = { renderer: renderUnit.renderer, folder: renderUnit.folder, keys: new Set(), byCluster: {} }));
  unit.keys.add(objectKey);
  add((unit.byCluster[cluster] ??= emptyCounts()), entry);
}

/** countStates sums every (cluster, object) record, overall and per cluster. */
export function countStates(entries: Iterable<CachedStatus>, clusters: readonly string[]): StatusTotals {
  const all = emptyCounts();
  const byCluster: Record<string, StateCounts> = {};
  for (const cluster of clusters) byCluster[cluster] = emptyCounts();
  const keysBySource = new Map<string, Set<string>>();
  const unitsBySource = new Map<string, Map<string, UnitTally>>();
  const bySource: Record<string, SourceCounts> = {};
  for (const entry of entries) {
    const { cluster, source, objectKey } = entry.status;
    add(all, entry);
    add((byCluster[cluster] ??= emptyCounts()), entry);
    const counts = (bySource[source] ??= { objects: 0, byCluster: {}, units: [] });
    add((counts.byCluster[cluster] ??= emptyCounts()), entry);
    addToUnit(unitsBySource, entry);
    let keys = keysBySource.get(source);
    if (!keys) keysBySource.set(source, (keys = new Set()));
    keys.add(objectKey);
  }
  for (const [source, keys] of keysBySource) bySource[source]!.objects = keys.size;
  for (const [source, units] of unitsBySource) {
    bySource[source]!.units = [...units.values()].map(({ keys, ...unit }) => ({ ...unit, objects: keys.size })).sort((a, b) => a.folder.localeCompare(b.folder));
  }
  return { all, byCluster, sources: [...keysBySource.keys()].sort(), bySource };
}
