import { describe, expect, it } from 'vitest';
import { applyWebAppDefaults, enabledWebAppFeatures } from './apply-webapp-defaults';
import { webAppFeatures } from './features/index';

describe('applyWebAppDefaults', () => {
  it('fills port and replicas', () => {
    expect(applyWebAppDefaults({ image: 'web' })).toEqual({ image: 'web', port: 8080, replicas: 1 });
  });

  it('keeps given values', () => {
    expect(applyWebAppDefaults({ image: 'web', port: 3000, replicas: 4 })).toEqual({ image: 'web', port: 3000, replicas: 4 });
  });
});

describe('enabledWebAppFeatures', () => {
  it('lists enabled features in feature order, whatever the spec order', () => {
    const spec = { image: 'web', features: { ingress: { enabled: true }, metrics: { enabled: true }, config: { enabled: false }, autoscaling: {} } };
    expect(enabledWebAppFeatures(spec, webAppFeatures)).toEqual(['metrics', 'ingress']);
  });
});
