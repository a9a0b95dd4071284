import { describe, expect, it } from 'vitest';
import { boundPreviewReport, type PreviewChange, type PreviewReport } from './preview';

const change = (name: string, padding: number): PreviewChange => ({
  cluster: 'a', objectKey: `core/ConfigMap/shop/${name}`, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name, action: 'configured',
  fields: [{ path: '/data/x', live: '1', desired: '2' }],
  desired: { data: { x: 'y'.repeat(padding) } }, live: { data: { x: 'z'.repeat(padding) } },
});
const report = (changes: PreviewChange[]): PreviewReport => ({ source: 's', ref: 'feature', state: 'done', requestedAt: '2026-01-01T00:00:00.000Z', changes });

describe('boundPreviewReport', () => {
  it('keeps a small report as it is', () => {
    const small = report([change('a', 10)]);
    expect(boundPreviewReport(small, 10_000)).toBe(small);
  });

  it('drops the largest side-by-side objects first and keeps every change and its fields', () => {
    const bounded = boundPreviewReport(report([change('small', 10), change('big', 5000), change('mid', 500)]), 3000);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(3000);
    expect(bounded.changes.map((entry) => entry.name)).toEqual(['small', 'big', 'mid']);
    expect(bounded.changes[1]).not.toHaveProperty('desired');
    expect(bounded.changes[0]?.desired).toBeDefined();
    expect(bounded.changes[1]?.fields).toHaveLength(1);
    expect(bounded.truncated).toEqual({ withoutObjects: 1, omitted: 0 });
  });

  it('leaves out the last changes when the objects alone do not make it fit, and says how many', () => {
    const many = Array.from({ length: 200 }, (_unused, index) => change(`object-${index}`, 100));
    const bounded = boundPreviewReport(report(many), 8000);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(8000);
    expect(bounded.truncated!.omitted).toBeGreaterThan(0);
    expect(bounded.changes.length + bounded.truncated!.omitted).toBe(200);
    expect(bounded.changes[0]?.name).toBe('object-0');
  });
});
