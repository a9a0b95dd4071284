import { describe, expect, it } from 'vitest';
import { canonicalResource, guessPlural, liveIdentity } from './duplicate-check';

const deployment = { group: 'apps', plural: 'deployments', namespaced: true, name: 'web' };

describe('liveIdentity', () => {
  it('gives a namespaced object without a namespace the default one', () => {
    expect(liveIdentity({ ...deployment, namespace: '' }, 'default')).toBe(liveIdentity({ ...deployment, namespace: 'default' }, 'default'));
    expect(liveIdentity({ ...deployment, namespace: '' }, 'default')).not.toBe(liveIdentity({ ...deployment, namespace: 'team' }, 'default'));
  });

  it('ignores the namespace of a cluster-scoped object', () => {
    const role = { group: 'rbac.authorization.k8s.io', plural: 'clusterroles', namespaced: false, name: 'reader' };
    expect(liveIdentity({ ...role, namespace: 'team' }, 'default')).toBe(liveIdentity({ ...role, namespace: '' }, 'default'));
  });

  it('names a resource served under two groups once', () => {
    expect(liveIdentity({ ...deployment, group: 'extensions', namespace: 'team' }, 'default')).toBe(liveIdentity({ ...deployment, namespace: 'team' }, 'default'));
    expect(canonicalResource('events.k8s.io', 'events')).toBe(canonicalResource('', 'events'));
    expect(canonicalResource('example.com', 'deployments')).not.toBe(canonicalResource('apps', 'deployments'));
  });
});

describe('guessPlural', () => {
  it('follows the English rules Kubernetes clients use', () => {
    expect(guessPlural('Deployment')).toBe('deployments');
    expect(guessPlural('Ingress')).toBe('ingresses');
    expect(guessPlural('NetworkPolicy')).toBe('networkpolicies');
    expect(guessPlural('Gateway')).toBe('gateways');
  });
});
