import { describe, expect, it } from 'vitest';
import { appContainer, byKind, renderSpec } from '../../testing/webapp-fixtures';

const labels = { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/instance': 'web', 'app.kubernetes.io/managed-by': 'tidemark' };

describe('renderWebApp: base', () => {
  const objects = renderSpec({ image: 'ghcr.io/shop/web:1.2.3', replicas: 3, env: [{ name: 'LOG_LEVEL', value: 'info' }] });

  it('renders a ServiceAccount, a Deployment and a Service, in that order', () => {
    expect(objects.map((object) => object.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
  });

  it('names, namespaces and labels every object after the WebApp, without ownerReferences', () => {
    for (const object of objects) {
      expect(object.metadata).toEqual({ name: 'web', namespace: 'shop', labels });
    }
  });

  it('renders a complete Deployment for the app', () => {
    expect(byKind(objects, 'Deployment').spec).toEqual({
      replicas: 3,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/instance': 'web' } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'web',
          containers: [{ name: 'app', image: 'ghcr.io/shop/web:1.2.3', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'LOG_LEVEL', value: 'info' }] }],
        },
      },
    });
  });

  it('renders a ClusterIP Service on the http port that selects the pods', () => {
    expect(byKind(objects, 'Service').spec).toEqual({
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/instance': 'web' },
      ports: [{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }],
    });
  });

  it('defaults replicas to 1', () => {
    expect(byKind(renderSpec({ image: 'web' }), 'Deployment').spec.replicas).toBe(1);
  });
});

describe('renderWebApp: determinism', () => {
  const everything = {
    image: 'web',
    features: {
      autoscaling: { enabled: true, maxReplicas: 4 },
      config: { enabled: true, data: { b: '2', a: '1' } },
      disruptionBudget: { enabled: true },
      ingress: { enabled: true, host: 'web.example.com' },
      metrics: { enabled: true },
      networkPolicy: { enabled: true, allowFrom: { namespaces: ['b', 'a'] } },
    },
  };

  it('gives the same objects in the same order for the same WebApp', () => {
    expect(JSON.stringify(renderSpec(everything))).toBe(JSON.stringify(renderSpec(structuredClone(everything))));
  });

  it('orders base components first, then feature components in feature order', () => {
    expect(renderSpec(everything).map((object) => object.kind)).toEqual([
      'ServiceAccount',
      'Deployment',
      'Service',
      'ConfigMap',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Ingress',
      'NetworkPolicy',
    ]);
  });

  it('does not modify the spec it renders', () => {
    const spec = structuredClone(everything);
    renderSpec(spec);
    expect(spec).toEqual(everything);
  });

  it('renders complete objects ready for server-side apply', () => {
    for (const object of renderSpec(everything)) {
      expect(object.apiVersion).toMatch(/^([a-z0-9.-]+\/)?v\d+(alpha\d+|beta\d+)?$/);
      expect(object.metadata.namespace).toBe('shop');
      expect(object.metadata.labels).toEqual(labels);
      expect(object.metadata.ownerReferences).toBeUndefined();
    }
  });

  it('gives the app container env from spec.env before feature env', () => {
    const objects = renderSpec({ image: 'web', env: [{ name: 'A', value: '1' }], features: { metrics: { enabled: true } } });
    expect(appContainer(byKind(objects, 'Deployment')).env?.map((variable) => variable.name)).toEqual(['A', 'METRICS_PORT']);
  });
});
