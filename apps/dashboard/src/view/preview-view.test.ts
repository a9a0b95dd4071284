import { describe, expect, it } from 'vitest';
import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { isPreviewReport, previewObjects, viewOfChange } from './preview-view';

const change = (extra: Partial<PreviewChange>): PreviewChange => ({
  cluster: 'east', objectKey: 'core/ConfigMap/shop/web', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web', action: 'configured', ...extra,
});

describe('viewOfChange', () => {
  it('lays a configured object out side by side, live left and the ref right, with the manager it overwrites', () => {
    const view = viewOfChange(change({ fields: [{ path: '/data/color', live: 'red', desired: 'green', overwrites: 'kubectl-edit' }, { path: '/data/size', desired: 'L' }] }));
    expect(view.lines).toEqual([
      { depth: 0, desired: 'data:', live: 'data:', changed: false },
      { depth: 1, desired: 'color: green', live: 'color: red', changed: true, path: '/data/color', manager: 'kubectl-edit' },
      { depth: 1, desired: 'size: L', live: 'size: (absent)', changed: true, path: '/data/size', manager: '' },
    ]);
    expect(view.fields).toEqual([{ path: '/data/color', change: 'changed', overwrites: 'kubectl-edit' }, { path: '/data/size', change: 'added' }]);
  });

  it('shows a created object whole on the right only', () => {
    const view = viewOfChange(change({ action: 'created', desired: { apiVersion: 'v1', kind: 'ConfigMap', data: { c: '3' } } }));
    expect(view.lines.map((line) => [line.live, line.desired])).toEqual([['', 'apiVersion: v1'], ['', 'kind: ConfigMap'], ['', 'data:'], ['', '  c: "3"']]);
  });

  it('never carries a Secret\'s values, or those of an object annotated for redaction, even when the record holds some', () => {
    const secret = viewOfChange(change({ kind: 'Secret', name: 'db', fields: [{ path: '/data/password', live: 'old-value', desired: 'new-value', overwrites: 'kubectl' }], desired: { data: { password: 'new-value' } } }));
    expect(secret).toMatchObject({ hidden: true, lines: [], fields: [{ path: '/data/password', change: 'changed' }] });
    expect(JSON.stringify(secret)).not.toMatch(/old-value|new-value/);
    const redacted = viewOfChange(change({ fields: [{ path: '/data/token', live: 'a', desired: 'b' }], live: { metadata: { annotations: { 'tidemark.dev/redact': 'true' } } } }));
    expect(redacted).toMatchObject({ hidden: true, lines: [] });
  });
});

describe('previewObjects', () => {
  it('groups changes by Git object in file order, each object\'s changes by cluster', () => {
    const report: PreviewReport = { source: 's', ref: 'feature/x', state: 'done', requestedAt: '2026-01-01T00:00:00Z', changes: [
      change({ cluster: 'west', objectKey: 'tidemark.dev/WebApp/shop/web', kind: 'Deployment', path: 'b.yaml', line: 3 }),
      change({ cluster: 'east', objectKey: 'tidemark.dev/WebApp/shop/web', kind: 'Service', path: 'b.yaml', line: 3, action: 'invalid', message: 'spec.ports[0].port: Invalid value: 70000' }),
      change({ objectKey: 'core/ConfigMap/shop/a', path: 'a.yaml', action: 'deleted' }),
    ] };
    const groups = previewObjects(report);
    expect(groups.map((group) => [group.objectKey, group.path, group.line])).toEqual([['core/ConfigMap/shop/a', 'a.yaml', undefined], ['tidemark.dev/WebApp/shop/web', 'b.yaml', 3]]);
    expect(groups[1]!.changes.map((view) => `${view.cluster} ${view.kind} ${view.action}`)).toEqual(['east Service invalid', 'west Deployment configured']);
    expect(groups[1]!.changes[0]!.message).toMatch(/70000/);
  });
});

describe('isPreviewReport', () => {
  it('accepts a report and refuses records of another shape', () => {
    expect(isPreviewReport({ source: 's', ref: 'r', state: 'done', requestedAt: 't', changes: [change({})] })).toBe(true);
    expect(isPreviewReport({ source: 's', ref: 'r', state: 'done', requestedAt: 't', changes: 'none' })).toBe(false);
    expect(isPreviewReport({ source: 's', ref: 'r', state: 'done', requestedAt: 't', changes: [{ ...change({}), kind: 7 }] })).toBe(false);
    expect(isPreviewReport(null)).toBe(false);
  });
});
