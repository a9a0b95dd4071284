import { describe, expect, it } from 'vitest';
import { appContainer, byKind, renderSpec } from '../../testing/webapp-fixtures';

describe('metricsFeature', () => {
  const objects = renderSpec({ image: 'web', features: { metrics: { enabled: true, port: 9102, path: '/stats' } } });
  const deployment = byKind(objects, 'Deployment');

  it('adds a named metrics port to the container and the Service', () => {
    expect(appContainer(deployment).ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9102, protocol: 'TCP' },
    ]);
    expect(byKind(objects, 'Service').spec.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' },
      { name: 'metrics', port: 9102, targetPort: 'metrics', protocol: 'TCP' },
    ]);
  });

  it('tells the app its port through METRICS_PORT', () => {
    expect(appContainer(deployment).env).toEqual([{ name: 'METRICS_PORT', value: '9102' }]);
  });

  it('annotates the pods for Prometheus', () => {
    expect(deployment.spec.template.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102', 'prometheus.io/path': '/stats' });
  });

  it('defaults to port 9090 and /metrics', () => {
    const defaults = byKind(renderSpec({ image: 'web', features: { metrics: { enabled: true } } }), 'Deployment');
    expect(defaults.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/port': '9090', 'prometheus.io/path': '/metrics' });
  });

  it('adds no object of its own', () => {
    expect(objects.map((object) => object.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
  });
});
