import { clusterInScope, inScope, type TokenScope } from '../auth/token-scope';
import type { CachedStatus, ObjectRow, StatusCache } from './status-cache';

/** StatusView is what the dashboard's views read of the status cache. */
export type StatusView = Pick<StatusCache, 'version' | 'keys' | 'rows' | 'cellsOf' | 'clusters' | 'entries'>;

/**
 * ScopedStatusView is the status cache as a scoped token sees it: only the records of its sources,
 * namespaces and clusters, and only the objects that keep at least one. Rebuilt once per cache version.
 */
export class ScopedStatusView implements StatusView {
  private built: { version: number; rows: ObjectRow[]; byKey: Map<string, ObjectRow> } | undefined;

  constructor(private readonly cache: StatusView, readonly scope: TokenScope) {}

  get version(): number {
    return this.cache.version;
  }

  clusters(): string[] {
    return this.cache.clusters().filter((cluster) => clusterInScope(this.scope, cluster));
  }

  keys(): readonly string[] {
    return this.rows().map((row) => row.objectKey);
  }

  rows(): readonly ObjectRow[] {
    return this.current().rows;
  }

  cellsOf(objectKey: string): ReadonlyMap<string, CachedStatus> | undefined {
    return this.current().byKey.get(objectKey)?.cells;
  }

  *entries(): Generator<CachedStatus> {
    for (const row of this.rows()) yield* row.cells.values();
  }

  private current(): { rows: ObjectRow[]; byKey: Map<string, ObjectRow> } {
    if (this.built?.version === this.cache.version) return this.built;
    const rows: ObjectRow[] = [];
    for (const row of this.cache.rows()) {
      const cells = new Map([...row.cells].filter(([, entry]) => inScope(this.scope, entry.status)));
      if (cells.size > 0) rows.push({ ...row, cells });
    }
    this.built = { version: this.cache.version, rows, byKey: new Map(rows.map((row) => [row.objectKey, row])) };
    return this.built;
  }
}
