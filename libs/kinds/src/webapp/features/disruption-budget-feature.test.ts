import { describe, expect, it } from 'vitest';
import { byKind, renderSpec } from '../../testing/webapp-fixtures';

const selector = { matchLabels: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/instance': 'web' } };

function pdbSpec(settings: Record<string, unknown>) {
  return byKind(renderSpec({ image: 'web', features: { disruptionBudget: { enabled: true, ...settings } } }), 'PodDisruptionBudget').spec;
}

describe('disruptionBudgetFeature', () => {
  it('selects the app pods with maxUnavailable 1 by default', () => {
    expect(pdbSpec({})).toEqual({ selector, maxUnavailable: 1 });
  });

  it('uses minAvailable when given', () => {
    expect(pdbSpec({ minAvailable: '50%' })).toEqual({ selector, minAvailable: '50%' });
  });

  it('uses maxUnavailable when given', () => {
    expect(pdbSpec({ maxUnavailable: 2 })).toEqual({ selector, maxUnavailable: 2 });
  });

  it('is a policy/v1 PodDisruptionBudget', () => {
    expect(byKind(renderSpec({ image: 'web', features: { disruptionBudget: { enabled: true } } }), 'PodDisruptionBudget').apiVersion).toBe('policy/v1');
  });
});
