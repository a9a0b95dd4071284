import { describe, expect, it } from 'vitest';
import type { SourceAllow } from '@tidemark/git-source';
import { narrowAllow } from './allow-ceiling';

const list = (fields: Partial<SourceAllow>): SourceAllow => ({ namespaces: ['*'], kinds: ['*'], denyKinds: [], clusterKinds: [], clusters: ['*'], createNamespaces: false, serviceAccounts: [], ...fields });

describe('narrowAllow', () => {
  it('keeps the narrower of two nested patterns, and drops pairs that only overlap (never wider than either)', () => {
    const narrowed = narrowAllow(list({ namespaces: ['team-*', 'kube-system', '*-prod'] }), list({ namespaces: ['team-a*', 'team-b'] }));
    expect(narrowed?.namespaces).toEqual(['team-a*', 'team-b']);
  });

  it('narrows kinds part by part, adds up denyKinds, and needs both for createNamespaces', () => {
    const narrowed = narrowAllow(
      list({ kinds: ['*'], clusterKinds: ['rbac.authorization.k8s.io/*'], denyKinds: ['Secret'], createNamespaces: true }),
      list({ kinds: ['apps/*', 'ConfigMap'], clusterKinds: ['rbac.authorization.k8s.io/ClusterRole'], denyKinds: ['apps/DaemonSet'], createNamespaces: false }),
    );
    expect(narrowed).toMatchObject({ kinds: ['apps/*', 'ConfigMap'], clusterKinds: ['rbac.authorization.k8s.io/ClusterRole'], denyKinds: ['Secret', 'apps/DaemonSet'], createNamespaces: false });
  });

  it('narrows ServiceAccount patterns by namespace and name', () => {
    expect(narrowAllow(list({ serviceAccounts: ['team-a/*', 'team-b/ci'] }), list({ serviceAccounts: ['team-a/deploy-*'] }))?.serviceAccounts).toEqual(['team-a/deploy-*']);
  });

  it('gives the ceiling to a Source without a list, and a Source its own without a ceiling', () => {
    const ceiling = list({ namespaces: ['team-*'] });
    expect(narrowAllow(undefined, ceiling)).toBe(ceiling);
    expect(narrowAllow(ceiling, undefined)).toBe(ceiling);
    expect(narrowAllow(undefined, undefined)).toBeUndefined();
  });
});
