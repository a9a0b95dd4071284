import { parseObjectKey, type ResourceHealth } from '@tidemark/contracts';
import { matchesCondition, type CellSummary, type ConditionFilter } from './cell-state';
import type { CachedStatus, ObjectRow } from './status-cache';
import { VersionMemo } from './version-memo';

/** MatrixSource is what the matrix reads: sorted keys and rows, and each key's records per cluster. */
export interface MatrixSource {
  keys(): readonly string[];
  rows(): readonly ObjectRow[];
  cellsOf(objectKey: string): ReadonlyMap<string, CachedStatus> | undefined;
  clusters(): string[];
}

/** ObjectFilter narrows the matrix; every field is optional. */
export interface ObjectFilter {
  kind?: string;
  namespace?: string;
  cluster?: string;
  /** Only objects declared by this Git source. */
  source?: string;
  condition?: ConditionFilter;
  /** Case-insensitive text found in the object key or the Git path. */
  q?: string;
  /** 1-based. */
  page?: number;
  pageSize?: number;
}

/** RenderedCell is how one object a CR rendered stands on one cluster. */
export interface RenderedCell {
  health: ResourceHealth;
  drifted: boolean;
  message?: string;
}

/** RenderedRow is one object a CR rendered (a WebApp's Deployment), with its state per cluster. */
export interface RenderedRow {
  kind: string;
  namespace: string;
  name: string;
  cells: Record<string, RenderedCell>;
}

/** MatrixRow is one object with its cell on each (shown) cluster. */
export interface MatrixRow {
  objectKey: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  path?: string;
  cells: Record<string, CellSummary>;
  /** The objects it rendered, for a kind (absent for a plain manifest). */
  rendered?: RenderedRow[];
}

export interface MatrixPage {
  clusters: string[];
  rows: MatrixRow[];
  /** Rows matching the filter, on all pages. */
  total: number;
  page: number;
  pageSize: number;
  pages: number;
}

export const defaultPageSize = 50;
export const maxPageSize = 500;

/**
 * queryMatrix filters and pages the object × cluster matrix. Rows are sorted by key; the scan
 * stops once the page is full, only counting further matches.
 */
export function queryMatrix(source: MatrixSource, filter: ObjectFilter, memo?: MatchMemo, rowMemo?: RowMemo): MatrixPage {
  const pageSize = Math.min(Math.max(1, filter.pageSize ?? defaultPageSize), maxPageSize);
  const page = Math.max(1, filter.page ?? 1);
  const clusters = filter.cluster ? source.clusters().filter((name) => name === filter.cluster) : source.clusters();
  const keys = isUnfiltered(filter) ? source.keys() : (memo?.get(filter) ?? memo?.set(filter, matchingKeys(source, filter)) ?? matchingKeys(source, filter));
  const rows: MatrixRow[] = [];
  for (const objectKey of keys.slice((page - 1) * pageSize, page * pageSize)) {
    const cells = source.cellsOf(objectKey);
    if (cells) rows.push(rowMemo ? rowMemo.rowOf(objectKey, cells, clusters) : toRow(objectKey, cells, clusters));
  }
  return { clusters, rows, total: keys.length, page, pageSize, pages: Math.max(1, Math.ceil(keys.length / pageSize)) };
}

function matchingKeys(source: MatrixSource, filter: ObjectFilter): string[] {
  const needle = filter.q?.trim().toLowerCase() ?? '';
  const keys: string[] = [];
  for (const row of source.rows()) if (rowMatches(row, filter, needle)) keys.push(row.objectKey);
  return keys;
}

/** MatchMemo keeps the keys matching the last few filters for one version of the data. */
export class MatchMemo {
  private readonly memo: VersionMemo<string[]>;

  constructor(currentVersion: () => number, capacity = 16) {
    this.memo = new VersionMemo(currentVersion, capacity);
  }

  get(filter: ObjectFilter): string[] | undefined {
    return this.memo.get(memoKey(filter));
  }

  set(filter: ObjectFilter, keys: string[]): string[] {
    return this.memo.set(memoKey(filter), keys);
  }
}

/**
 * RowMemo keeps each object's matrix row while its records stay the same. A write replaces a
 * record's cell summary, so a row is rebuilt only after its own object changed; the row object
 * itself stays the same, and pages memoise its markup on it.
 */
export class RowMemo {
  private readonly rows = new WeakMap<ReadonlyMap<string, CachedStatus>, { clusters: string; cells: CellSummary[]; row: MatrixRow }>();

  rowOf(objectKey: string, cells: ReadonlyMap<string, CachedStatus>, clusters: readonly string[]): MatrixRow {
    const shown = clusters.join('\n');
    // Cell summaries, not records: a stale entry keeps no old record alive.
    const summaries = [...cells.values()].map((entry) => entry.cell);
    const kept = this.rows.get(cells);
    if (kept && kept.clusters === shown && sameItems(kept.cells, summaries)) return kept.row;
    const row = toRow(objectKey, cells, clusters);
    this.rows.set(cells, { clusters: shown, cells: summaries, row });
    return row;
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function memoKey(filter: ObjectFilter): string {
  return JSON.stringify([filter.kind ?? '', filter.namespace ?? '', filter.cluster ?? '', filter.source ?? '', filter.condition ?? '', filter.q?.trim().toLowerCase() ?? '']);
}

function isUnfiltered(filter: ObjectFilter): boolean {
  return !filter.kind && !filter.namespace && !filter.cluster && !filter.source && !filter.condition && !filter.q?.trim();
}

function rowMatches(row: ObjectRow, filter: ObjectFilter, needle: string): boolean {
  if (filter.kind && row.kind !== filter.kind) return false;
  if (filter.namespace && row.namespace !== filter.namespace) return false;
  if (needle && !row.search.includes(needle)) return false;
  return cellsMatch(row.cells, filter);
}

function cellsMatch(cells: ReadonlyMap<string, CachedStatus>, filter: ObjectFilter): boolean {
  if (!filter.cluster && !filter.condition && !filter.source) return true;
  for (const [cluster, { cell, status }] of cells) {
    if (filter.cluster && cluster !== filter.cluster) continue;
    if (filter.source && status.source !== filter.source) continue;
    if (!filter.condition || matchesCondition(cell, filter.condition)) return true;
  }
  return false;
}

function toRow(objectKey: string, cells: ReadonlyMap<string, CachedStatus>, clusters: readonly string[]): MatrixRow {
  const ref = parseObjectKey(objectKey);
  const row: MatrixRow = { objectKey, group: ref.group, kind: ref.kind, namespace: ref.namespace, name: ref.name, cells: {} };
  for (const cluster of clusters) {
    const entry = cells.get(cluster);
    if (entry) row.cells[cluster] = entry.cell;
    if (entry?.status.path && row.path === undefined) row.path = entry.status.path;
  }
  // The record knows the namespace the object lives in; the key only what the file said.
  for (const { status } of cells.values()) {
    if (status.namespace) {
      row.namespace = status.namespace;
      break;
    }
  }
  const rendered = renderedRows(ref.kind, ref.name, cells, clusters);
  if (rendered.length > 0) row.rendered = rendered;
  return row;
}

/** renderedRows lists what a CR rendered on the shown clusters; a plain manifest renders only itself. */
function renderedRows(kind: string, name: string, cells: ReadonlyMap<string, CachedStatus>, clusters: readonly string[]): RenderedRow[] {
  const rows = new Map<string, RenderedRow>();
  for (const cluster of clusters) {
    const status = cells.get(cluster)?.status;
    const resources = status?.resources ?? [];
    if (resources.length === 1 && resources[0]!.kind === kind && resources[0]!.name === name) continue;
    for (const resource of resources) {
      const id = `${resource.kind}/${resource.namespace}/${resource.name}`;
      let row = rows.get(id);
      if (!row) rows.set(id, (row = { kind: resource.kind, namespace: resource.namespace, name: resource.name, cells: {} }));
      const subject = `${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`;
      const drifted = (status?.drift ?? []).some((item) => item.object === subject);
      row.cells[cluster] = { health: resource.health, drifted, ...(resource.message ? { message: resource.message } : {}) };
    }
  }
  return [...rows.values()];
}

/** Facets lists the values the filters offer. */
export interface Facets {
  kinds: string[];
  namespaces: string[];
  sources: string[];
}

/** facetsOf collects the kinds, namespaces and sources of all rows. */
export function facetsOf(source: MatrixSource): Facets {
  const kinds = new Set<string>();
  const namespaces = new Set<string>();
  const sources = new Set<string>();
  for (const row of source.rows()) {
    kinds.add(row.kind);
    if (row.namespace) namespaces.add(row.namespace);
    for (const { status } of row.cells.values()) sources.add(status.source);
  }
  return { kinds: [...kinds].sort(), namespaces: [...namespaces].sort(), sources: [...sources].sort() };
}
