import { describe, expect, it } from 'vitest';
import { byKind, renderSpec } from '../../testing/webapp-fixtures';
import { applyWebAppDefaults } from '../apply-webapp-defaults';

describe('autoscalingFeature', () => {
  const objects = renderSpec({ image: 'web', features: { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 10, targetCPUUtilization: 70 } } });

  it('adds an autoscaling/v2 HPA on CPU that targets the Deployment', () => {
    const hpa = byKind(objects, 'HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
    });
  });

  it('omits replicas from the Deployment so the HPA owns it under server-side apply', () => {
    expect('replicas' in byKind(objects, 'Deployment').spec).toBe(false);
  });

  it('omits replicas even when the spec sets them (the CRD rejects that; render stays safe)', () => {
    const withReplicas = renderSpec({ image: 'web', replicas: 5, features: { autoscaling: { enabled: true, maxReplicas: 10 } } });
    expect('replicas' in byKind(withReplicas, 'Deployment').spec).toBe(false);
  });

  it('does not default replicas when autoscaling is on', () => {
    expect(applyWebAppDefaults({ image: 'web', features: { autoscaling: { enabled: true } } }).replicas).toBeUndefined();
  });

  it('uses minReplicas 1 and 80% CPU by default', () => {
    const hpa = byKind(renderSpec({ image: 'web', features: { autoscaling: { enabled: true, maxReplicas: 3 } } }), 'HorizontalPodAutoscaler');
    expect(hpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 3, metrics: [{ resource: { target: { averageUtilization: 80 } } }] });
  });

  it('renders no HPA and keeps replicas when disabled', () => {
    const disabled = renderSpec({ image: 'web', replicas: 2, features: { autoscaling: { enabled: false, maxReplicas: 3 } } });
    expect(disabled.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
    expect(byKind(disabled, 'Deployment').spec.replicas).toBe(2);
  });
});
