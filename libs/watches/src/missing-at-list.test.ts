import { describe, expect, it } from 'vitest';
import type { AppliedResource, ObjectStatus } from '@tidemark/contracts';
import { kindId } from './managed-kinds';
import { missingAtList, type ListedKind } from './missing-at-list';

const listStarted = Date.parse('2026-12-02T08:00:00Z');

function resource(kind: string, name: string): AppliedResource {
  return { apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, namespace: 'shop', name, action: 'created', health: 'Ready' };
}

function webApp(overrides: Partial<ObjectStatus> = {}): ObjectStatus {
  return {
    cluster: 'east', objectKey: 'tidemark.dev/WebApp/shop/web', source: 'apps', apiVersion: 'tidemark.dev/v1beta1', kind: 'WebApp', namespace: 'shop', name: 'web',
    lastAppliedRevision: 'a'.repeat(40), conditions: [], inventory: [], resources: [resource('Deployment', 'web'), resource('ConfigMap', 'web')],
    updatedAt: '2026-12-02T07:59:00Z', ...overrides,
  };
}

function lists(entries: Record<string, string[]>, since = listStarted): Map<string, ListedKind> {
  return new Map(Object.entries(entries).map(([id, keys]) => [id, { keys: new Set(keys), since }]));
}

describe('missingAtList', () => {
  it('finds an applied object that a completed list of its kind lacks', () => {
    expect(missingAtList(webApp(), lists({ [kindId('v1', 'ConfigMap')]: ['shop/other'] }))).toBe(true);
    expect(missingAtList(webApp(), lists({ [kindId('apps/v1', 'Deployment')]: [] }))).toBe(true);
  });

  it('finds the record\'s own object missing from its kind\'s list', () => {
    expect(missingAtList(webApp(), lists({ [kindId('tidemark.dev/v1beta1', 'WebApp')]: ['shop/api'] }))).toBe(true);
  });

  it('says nothing while every applied object is listed, or its kind has not listed', () => {
    const listed = lists({ [kindId('v1', 'ConfigMap')]: ['shop/web'], [kindId('apps/v1', 'Deployment')]: ['shop/web'], [kindId('tidemark.dev/v1beta1', 'WebApp')]: ['shop/web'] });
    expect(missingAtList(webApp(), listed)).toBe(false);
    expect(missingAtList(webApp(), lists({ [kindId('v1', 'Service')]: [] }))).toBe(false);
  });

  it('does not judge a record written after the list began, which may predate its apply', () => {
    expect(missingAtList(webApp({ updatedAt: '2026-12-02T08:00:01Z' }), lists({ [kindId('v1', 'ConfigMap')]: [] }))).toBe(false);
  });

  it('does not expect a record\'s own object that was never applied', () => {
    const { lastAppliedRevision: _, ...never } = webApp({ resources: [] });
    expect(missingAtList(never, lists({ [kindId('tidemark.dev/v1beta1', 'WebApp')]: [] }))).toBe(false);
  });

  it('keys cluster-scoped objects with an empty namespace', () => {
    const namespace = webApp({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop', resources: [{ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop', action: 'created', health: 'Ready' }] });
    expect(missingAtList(namespace, lists({ [kindId('v1', 'Namespace')]: ['/shop'] }))).toBe(false);
    expect(missingAtList(namespace, lists({ [kindId('v1', 'Namespace')]: ['/other'] }))).toBe(true);
  });
});
