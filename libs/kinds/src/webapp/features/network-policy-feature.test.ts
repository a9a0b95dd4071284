import { describe, expect, it } from 'vitest';
import { byKind, renderSpec } from '../../testing/webapp-fixtures';

const podSelector = { matchLabels: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/instance': 'web' } };

function policySpec(allowFrom?: Record<string, unknown>) {
  return byKind(renderSpec({ image: 'web', features: { networkPolicy: { enabled: true, ...(allowFrom ? { allowFrom } : {}) } } }), 'NetworkPolicy').spec;
}

describe('networkPolicyFeature', () => {
  it('admits only the same namespace when nothing is listed', () => {
    expect(policySpec()).toEqual({ podSelector, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: {} }] }] });
  });

  it('admits the listed namespaces (sorted) and labelled pods', () => {
    expect(policySpec({ namespaces: ['monitoring', 'ingress-nginx'], podLabels: { role: 'frontend' } })).toEqual({
      podSelector,
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['ingress-nginx', 'monitoring'] }] } },
            { podSelector: { matchLabels: { role: 'frontend' } } },
          ],
        },
      ],
    });
  });
});
