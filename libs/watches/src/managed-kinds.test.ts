import { describe, expect, it } from 'vitest';
import { ownerOf } from '@tidemark/contracts';
import { isOwnEcho, managedKinds } from './managed-kinds';

const own = new Set(['tidemark', 'tidemark-actions']);

describe('isOwnEcho', () => {
  it('ignores a change whose newest entry is Tidemark\'s own', () => {
    expect(isOwnEcho([{ manager: 'kubectl', time: '2026-11-30T10:00:00Z' }, { manager: 'tidemark', time: '2026-11-30T10:00:05Z' }], own)).toBe(true);
  });

  it('wakes on an edit after Tidemark\'s write, in the same second, or without a time (writes through /scale)', () => {
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, { manager: 'kubectl', time: '2026-11-30T10:00:06Z' }], own)).toBe(false);
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, { manager: 'kubectl', time: '2026-11-30T10:00:05Z' }], own)).toBe(false);
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, { manager: 'kubectl', subresource: 'scale' }], own)).toBe(false);
  });

  it('with statusIsEcho (a listed object), a controller\'s status write after Tidemark\'s is no change, an edit is', () => {
    const status = { manager: 'kube-controller-manager', subresource: 'status', time: '2026-11-30T10:00:09Z' };
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, status], own, { statusIsEcho: true })).toBe(true);
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, status], own)).toBe(false);
    expect(isOwnEcho([{ manager: 'tidemark', time: '2026-11-30T10:00:05Z' }, status, { manager: 'kubectl-edit', time: '2026-11-30T10:00:07Z' }], own, { statusIsEcho: true })).toBe(false);
  });

  it('wakes when Tidemark never wrote the object', () => {
    expect(isOwnEcho([{ manager: 'kubectl', time: '2026-11-30T10:00:00Z' }], own)).toBe(false);
    expect(isOwnEcho(undefined, own)).toBe(false);
  });
});

describe('ownerOf and managedKinds', () => {
  it('reads the owner annotation and the kinds of records and inventories', () => {
    expect(ownerOf({ 'tidemark.dev/owner': 'repo:apps/Deployment/shop/web' })).toEqual({ source: 'repo', objectKey: 'apps/Deployment/shop/web' });
    expect(ownerOf({})).toBeUndefined();
    const kinds = managedKinds([{
      cluster: 'c', objectKey: 'k', source: 's', apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', namespace: 'n', name: 'w', conditions: [], updatedAt: '',
      inventory: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'n', name: 'w' }],
    }]);
    expect([...kinds.keys()]).toEqual(['tidemark.dev/v1alpha1|WebApp', 'apps/v1|Deployment']);
  });
});
