import { describe, expect, it } from 'vitest';
import { appContainer, byKind, renderSpec } from '../../testing/webapp-fixtures';

describe('spec.override', () => {
  it('beats features, which beat the base (METRICS_PORT written by all three)', () => {
    const base = renderSpec({ image: 'web', env: [{ name: 'METRICS_PORT', value: 'base' }], features: { metrics: { enabled: true, port: 9100 } } });
    expect(appContainer(byKind(base, 'Deployment')).env).toEqual([{ name: 'METRICS_PORT', value: '9100' }]);
    const overridden = renderSpec({
      image: 'web',
      env: [{ name: 'METRICS_PORT', value: 'base' }],
      features: { metrics: { enabled: true, port: 9100 } },
      override: { deployment: { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'METRICS_PORT', value: 'override' }] }] } } } } },
    });
    expect(appContainer(byKind(overridden, 'Deployment')).env).toEqual([{ name: 'METRICS_PORT', value: 'override' }]);
  });

  it('merges containers by name, keeping what it does not mention', () => {
    const objects = renderSpec({
      image: 'web',
      override: { deployment: { spec: { template: { spec: { containers: [{ name: 'app', imagePullPolicy: 'Always' }, { name: 'proxy', image: 'envoy' }] } } } } },
    });
    const containers = byKind(objects, 'Deployment').spec.template.spec.containers;
    expect(containers.map((container) => container.name)).toEqual(['app', 'proxy']);
    expect(containers[0]).toMatchObject({ name: 'app', image: 'web', imagePullPolicy: 'Always', ports: [{ name: 'http' }] });
  });

  it('deletes a field with null, even one a feature set', () => {
    const objects = renderSpec({ image: 'web', features: { metrics: { enabled: true } }, override: { deployment: { spec: { template: { metadata: { annotations: { 'prometheus.io/scrape': null } } } } } } });
    expect(byKind(objects, 'Deployment').spec.template.metadata.annotations).toEqual({ 'prometheus.io/port': '9090', 'prometheus.io/path': '/metrics' });
  });

  it('can set replicas back on an autoscaled Deployment (override wins over everything)', () => {
    const objects = renderSpec({ image: 'web', features: { autoscaling: { enabled: true, maxReplicas: 3 } }, override: { deployment: { spec: { replicas: 2 } } } });
    expect(byKind(objects, 'Deployment').spec.replicas).toBe(2);
  });

  it('changes a feature component (the HPA) and the Service type', () => {
    const objects = renderSpec({ image: 'web', features: { autoscaling: { enabled: true, maxReplicas: 3 } }, override: { hpa: { spec: { maxReplicas: 9 } }, service: { spec: { type: 'NodePort' } } } });
    expect(byKind(objects, 'HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 1, maxReplicas: 9 });
    expect(byKind(objects, 'Service').spec.type).toBe('NodePort');
  });

  it('keeps the identity of objects, which the inventory tracks', () => {
    const objects = renderSpec({ image: 'web', override: { service: { apiVersion: 'v2', kind: 'Other', metadata: { name: 'renamed', namespace: 'elsewhere', labels: { extra: 'yes' } } } } });
    expect(byKind(objects, 'Service')).toMatchObject({ apiVersion: 'v1', metadata: { name: 'web', namespace: 'shop', labels: { extra: 'yes', 'app.kubernetes.io/name': 'web' } } });
  });

  it('ignores an override for a component that is not rendered', () => {
    const objects = renderSpec({ image: 'web', override: { ingress: { spec: { rules: [] } } } });
    expect(objects.map((object) => object.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
  });
});
