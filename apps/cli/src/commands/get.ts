import type { ApiClient } from '../api-client';
import type { Cell, ObjectPage } from '../api-types';
import { paint, printJson, stateColour, table, type Output } from '../output';

/** GetFilters are the dashboard's object filters, one flag each. */
export interface GetFilters {
  kind?: string; namespace?: string; cluster?: string; source?: string; condition?: string; search?: string; page?: number; pageSize?: number;
}

/** getCommand lists objects with their state on each cluster (GET /api/objects). */
export async function getCommand(api: ApiClient, output: Output, filters: GetFilters): Promise<void> {
  const page = await api.get<ObjectPage>('/objects', {
    kind: filters.kind, namespace: filters.namespace, cluster: filters.cluster, source: filters.source,
    condition: filters.condition, q: filters.search, page: filters.page, pageSize: filters.pageSize,
  });
  if (output.format === 'json') return printJson(output, page);
  const clusters = filters.cluster ? [filters.cluster] : page.clusters;
  output.write(table(['KIND', 'NAMESPACE', 'NAME', ...clusters.map((cluster) => cluster.toUpperCase())], page.rows.map((row) => [
    row.kind, row.namespace || '-', row.name, ...clusters.map((cluster) => cellText(output, row.cells[cluster])),
  ])));
  if (page.pages > 1) output.write(`page ${page.page} of ${page.pages} (${page.total} objects); --page N for more\n`);
  else if (page.total === 0) output.write('no objects match\n');
}

function cellText(output: Output, cell: Cell | undefined): string {
  if (!cell) return '-';
  const marks = [cell.drifted ? 'drifted' : '', cell.suspended ? 'suspended' : ''].filter(Boolean);
  return paint(output, stateColour(cell.state), cell.state) + (marks.length > 0 ? ` (${marks.join(', ')})` : '');
}
