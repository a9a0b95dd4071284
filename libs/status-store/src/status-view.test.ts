import { describe, expect, it } from 'vitest';
import { parseStatusRecord } from './status-view';

const base = { cluster: 'east', objectKey: 'tidemark.dev/WebApp/shop/web', source: 'apps', apiVersion: 'tidemark.dev/v1beta1', kind: 'WebApp', namespace: 'shop', name: 'web', conditions: [], inventory: [], updatedAt: '2026-12-02T08:00:00Z' };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web', action: 'created', health: 'Ready' };

describe('parseStatusRecord', () => {
  it('keeps only the applied resources that name an object: a record comes from Redis', () => {
    const record = parseStatusRecord(JSON.stringify({ ...base, resources: [null, 'x', { kind: 'ConfigMap' }, { ...configMap, namespace: 7 }, configMap] }));
    expect(record?.resources).toEqual([configMap]);
    expect(parseStatusRecord(JSON.stringify({ ...base, resources: { not: 'a list' } }))?.resources).toEqual([]);
    expect(parseStatusRecord(JSON.stringify(base))?.resources).toBeUndefined();
  });

  it('skips a record without the fields every reader relies on', () => {
    expect(parseStatusRecord(JSON.stringify({ ...base, conditions: 'none' }))).toBeUndefined();
    expect(parseStatusRecord('not json')).toBeUndefined();
  });
});
