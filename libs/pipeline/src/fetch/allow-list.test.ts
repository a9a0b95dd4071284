import { describe, expect, it } from 'vitest';
import { kindName, matches, refusalOf, serviceAccountRefusal, type AllowList } from './allow-list';

const teamA: AllowList = { namespaces: ['team-a', 'team-a-*'], kinds: ['*'], denyKinds: ['rbac.authorization.k8s.io/*Binding'], clusterKinds: [], clusters: ['west'], createNamespaces: false, serviceAccounts: [] };
const target = { cluster: 'west', apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team-a', name: 'web' };

describe('refusalOf', () => {
  it('allows a namespaced object in an allowed namespace on an allowed cluster', () => {
    expect(refusalOf(teamA, target)).toBeUndefined();
    expect(refusalOf(teamA, { ...target, namespace: 'team-a-staging' })).toBeUndefined();
  });

  it.each([
    [{ ...target, namespace: 'team-b' }, 'namespace team-b is not in allow.namespaces (team-a, team-a-*)'],
    [{ ...target, cluster: 'east' }, 'cluster east is not in allow.clusters (west)'],
    [{ ...target, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespace: undefined }, 'kind rbac.authorization.k8s.io/ClusterRoleBinding matches allow.denyKinds "rbac.authorization.k8s.io/*Binding"'],
    [{ ...target, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: undefined }, 'rbac.authorization.k8s.io/ClusterRole is cluster-scoped and not in allow.clusterKinds (none)'],
    [{ ...target, apiVersion: 'v1', kind: 'Namespace', namespace: undefined, name: 'team-a' }, 'Namespace team-a: allow.createNamespaces is false'],
  ])('names the rule that refuses: %#', (refused, message) => {
    expect(refusalOf(teamA, refused)).toBe(message);
  });

  it('lets a source create only the Namespaces it may use, when allowed to create any', () => {
    const creating = { ...teamA, createNamespaces: true };
    expect(refusalOf(creating, { ...target, apiVersion: 'v1', kind: 'Namespace', namespace: undefined, name: 'team-a-dev' })).toBeUndefined();
    expect(refusalOf(creating, { ...target, apiVersion: 'v1', kind: 'Namespace', namespace: undefined, name: 'kube-system' })).toBe('Namespace kube-system is not in allow.namespaces (team-a, team-a-*)');
  });

  it('allows a cluster-scoped kind only when listed, and a namespaced kind only when listed', () => {
    const listed = { ...teamA, clusterKinds: ['apiextensions.k8s.io/CustomResourceDefinition'], kinds: ['ConfigMap', 'apps/*'] };
    expect(refusalOf(listed, { ...target, apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: undefined })).toBeUndefined();
    expect(refusalOf(listed, { ...target, apiVersion: 'v1', kind: 'ConfigMap' })).toBeUndefined();
    expect(refusalOf(listed, { ...target, apiVersion: 'v1', kind: 'Secret' })).toBe('kind Secret is not in allow.kinds (ConfigMap, apps/*)');
    // A core kind pattern does not match the same name in another group.
    expect(refusalOf(listed, { ...target, apiVersion: 'example.com/v1', kind: 'ConfigMap' })).toBe('kind example.com/ConfigMap is not in allow.kinds (ConfigMap, apps/*)');
  });
});

describe('serviceAccountRefusal', () => {
  const delegating = { ...teamA, serviceAccounts: ['team-a/deployer', 'team-a-*/ci-*'] };

  it('allows a Placement rule only the ServiceAccounts the source lists', () => {
    expect(serviceAccountRefusal(delegating, { namespace: 'team-a', name: 'deployer' })).toBeUndefined();
    expect(serviceAccountRefusal(delegating, { namespace: 'team-a-dev', name: 'ci-web' })).toBeUndefined();
    expect(serviceAccountRefusal(delegating, { namespace: 'team-b', name: 'deployer' })).toBe('team-b/deployer is not in allow.serviceAccounts (team-a/deployer, team-a-*/ci-*)');
    expect(serviceAccountRefusal(teamA, { namespace: 'team-a', name: 'deployer' })).toBe('team-a/deployer is not in allow.serviceAccounts (none)');
  });

  it('allows none to a source without an allow-list', () => {
    expect(serviceAccountRefusal(undefined, { namespace: 'team-a', name: 'deployer' })).toMatch(/^the source has no allow-list/);
  });
});

describe('matches', () => {
  it.each([
    ['team-*', 'team-a', true], ['team-*', 'team', false], ['*-prod', 'a-prod', true], ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false], ['*', '', true], ['team-a', 'team-ab', false], ['*a*', 'b', false],
  ])('%s against %s is %s', (pattern, value, expected) => {
    expect(matches(pattern, value)).toBe(expected);
  });

  it('writes kinds as group/Kind', () => {
    expect(kindName('v1', 'ConfigMap')).toBe('ConfigMap');
    expect(kindName('apps/v1', 'Deployment')).toBe('apps/Deployment');
  });
});
