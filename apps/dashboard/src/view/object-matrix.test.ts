import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { facetsOf, MatchMemo, queryMatrix, RowMemo, type MatrixSource } from './object-matrix';
import { newRow, putRecord, type ObjectRow } from './status-cache';

function status(cluster: string, objectKey: string, ready: 'True' | 'False', extra: Partial<ObjectStatus> = {}): ObjectStatus {
  const [, kind, namespace, name] = objectKey.split('/') as [string, string, string, string];
  const condition = (type: string, value: 'True' | 'False') => ({ type, status: value, reason: 'R', message: 'm', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' });
  return {
    cluster, objectKey, source: 's', apiVersion: 'v1', kind, namespace: namespace === '_' ? '' : namespace, name, path: `dir/${name}.yaml`,
    conditions: [condition('Ready', ready), condition('Reconciling', ready === 'True' ? 'False' : 'True')], inventory: [], updatedAt: '2026-01-01T00:00:00Z', ...extra,
  };
}

function source(statuses: ObjectStatus[]): MatrixSource {
  const byKey = new Map<string, ObjectRow>();
  for (const entry of statuses) {
    const row = byKey.get(entry.objectKey) ?? newRow(entry.objectKey);
    putRecord(row, entry);
    byKey.set(entry.objectKey, row);
  }
  const rows = [...byKey.values()].sort((a, b) => (a.objectKey < b.objectKey ? -1 : 1));
  return { keys: () => rows.map((row) => row.objectKey), rows: () => rows, cellsOf: (key) => byKey.get(key)?.cells, clusters: () => [...new Set(statuses.map((entry) => entry.cluster))].sort() };
}

const data = source([
  status('a', 'core/ConfigMap/ns1/one', 'True'),
  status('b', 'core/ConfigMap/ns1/one', 'False'),
  status('a', 'core/ConfigMap/ns2/two', 'True', { suspended: true }),
  status('a', 'apps/Deployment/ns1/web', 'True', { drift: [{ path: '/spec/replicas', desired: 1, live: 2, manager: 'm', detectedAt: '' }] }),
  status('b', 'core/Namespace/_/ns1', 'True'),
]);

describe('queryMatrix', () => {
  it('pages sorted rows and counts all matches', () => {
    const page = queryMatrix(data, { pageSize: 2, page: 2 });
    expect(page).toMatchObject({ total: 4, pages: 2, page: 2, clusters: ['a', 'b'] });
    expect(page.rows.map((row) => row.objectKey)).toEqual(['core/ConfigMap/ns2/two', 'core/Namespace/_/ns1']);
    expect(queryMatrix(data, { pageSize: 2, page: 9 }).rows).toEqual([]);
  });

  it('filters by kind, namespace, cluster (also narrowing the columns), condition and text', () => {
    const keys = (filter: Parameters<typeof queryMatrix>[1]) => queryMatrix(data, filter).rows.map((row) => row.objectKey);
    expect(keys({ kind: 'Deployment' })).toEqual(['apps/Deployment/ns1/web']);
    expect(keys({ namespace: 'ns2' })).toEqual(['core/ConfigMap/ns2/two']);
    expect(keys({ cluster: 'b' })).toEqual(['core/ConfigMap/ns1/one', 'core/Namespace/_/ns1']);
    expect(queryMatrix(data, { cluster: 'b' }).rows[0]?.cells).toEqual({ b: expect.objectContaining({ state: 'Reconciling' }) });
    expect(keys({ condition: 'Reconciling' })).toEqual(['core/ConfigMap/ns1/one']);
    expect(keys({ condition: 'Reconciling', cluster: 'a' })).toEqual([]);
    expect(keys({ condition: 'Drifted' })).toEqual(['apps/Deployment/ns1/web']);
    expect(keys({ condition: 'Suspended' })).toEqual(['core/ConfigMap/ns2/two']);
    expect(keys({ q: 'WEB' })).toEqual(['apps/Deployment/ns1/web']);
    expect(keys({ q: 'dir/two.yaml' })).toEqual(['core/ConfigMap/ns2/two']);
    expect(keys({ source: 's', kind: 'Namespace' })).toEqual(['core/Namespace/_/ns1']);
    expect(keys({ source: 'other' })).toEqual([]);
  });

  it('finds a custom resource by the text of what it rendered', () => {
    const rendered = (kind: string, name: string) => ({ apiVersion: 'v1', kind, namespace: 'shop', name, action: 'created' as const, health: 'Ready' as const });
    const apps = source([
      status('a', 'tidemark.dev/WebApp/shop/storefront', 'True', { resources: [rendered('Deployment', 'storefront-web'), rendered('Service', 'storefront-web')] }),
      status('b', 'tidemark.dev/WebApp/shop/storefront', 'True', { resources: [rendered('ConfigMap', 'storefront-eu')] }),
      status('a', 'core/ConfigMap/shop/other', 'True'),
    ]);
    const keys = (q: string) => queryMatrix(apps, { q }).rows.map((row) => row.objectKey);
    expect(keys('storefront-web')).toEqual(['tidemark.dev/WebApp/shop/storefront']);
    expect(keys('Deployment/shop/')).toEqual(['tidemark.dev/WebApp/shop/storefront']);
    // What it rendered on any cluster counts.
    expect(keys('storefront-eu')).toEqual(['tidemark.dev/WebApp/shop/storefront']);
    expect(keys('dir/storefront.yaml')).toEqual(['tidemark.dev/WebApp/shop/storefront']);
    expect(keys('nothing-rendered')).toEqual([]);
  });

  it('files an object whose Git file names no namespace under the namespace the reconciler put it in', () => {
    const carts = source([status('a', 'core/ConfigMap/_/carts', 'True', { namespace: 'default' }), status('a', 'core/Namespace/_/ns1', 'True')]);
    expect(queryMatrix(carts, { namespace: 'default' }).rows).toEqual([expect.objectContaining({ objectKey: 'core/ConfigMap/_/carts', namespace: 'default' })]);
    expect(queryMatrix(carts, {}).rows.find((row) => row.name === 'ns1')?.namespace).toBe('');
    expect(facetsOf(carts).namespaces).toEqual(['default']);
  });

  it('clamps the page size and lists facets from the keys', () => {
    expect(queryMatrix(data, { pageSize: 10_000 }).pageSize).toBe(500);
    expect(facetsOf(data)).toEqual({ kinds: ['ConfigMap', 'Deployment', 'Namespace'], namespaces: ['ns1', 'ns2'], sources: ['s'] });
  });

  it('serves further pages of a filter from the memo until the data changes', () => {
    let version = 1;
    let scans = 0;
    const counting: MatrixSource = { ...data, rows: () => { scans += 1; return data.rows(); } };
    const memo = new MatchMemo(() => version);
    expect(queryMatrix(counting, { namespace: 'ns1', pageSize: 1 }, memo).total).toBe(2);
    expect(queryMatrix(counting, { namespace: 'ns1', pageSize: 1, page: 2 }, memo).rows[0]?.objectKey).toBe('core/ConfigMap/ns1/one');
    expect(scans).toBe(1);
    version = 2;
    queryMatrix(counting, { namespace: 'ns1', pageSize: 1 }, memo);
    expect(scans).toBe(2);
  });

  it('keeps an object\'s row until one of its records changes, and builds it again after', () => {
    const row = newRow('tidemark.dev/WebApp/shop/web');
    const resources = (health: 'Ready' | 'Progressing') => [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', uid: 'u1', action: 'unchanged' as const, health }];
    putRecord(row, status('a', row.objectKey, 'True', { resources: resources('Ready') }));
    putRecord(row, status('b', row.objectKey, 'True', { resources: resources('Ready') }));
    const memoised: MatrixSource = { keys: () => [row.objectKey], rows: () => [row], cellsOf: () => row.cells, clusters: () => ['a', 'b'] };
    const rows = new RowMemo();
    const first = queryMatrix(memoised, {}, undefined, rows).rows[0]!;
    expect(queryMatrix(memoised, {}, undefined, rows).rows[0]).toBe(first);
    // Showing one cluster is another row.
    expect(queryMatrix(memoised, { cluster: 'a' }, undefined, rows).rows[0]?.cells).toEqual({ a: expect.objectContaining({ state: 'Ready' }) });
    putRecord(row, status('b', row.objectKey, 'True', { resources: resources('Progressing') }));
    const after = queryMatrix(memoised, {}, undefined, rows).rows[0]!;
    expect(after).not.toBe(first);
    expect(after.rendered?.[0]?.cells.b?.health).toBe('Progressing');
    expect(queryMatrix(memoised, {}, undefined, rows).rows[0]).toBe(after);
  });
});
