import { describe, expect, it } from 'vitest';
import { byKind, renderSpec } from '../../testing/webapp-fixtures';

describe('ingressFeature', () => {
  it('routes host and path to the Service http port', () => {
    const ingress = byKind(renderSpec({ image: 'web', features: { ingress: { enabled: true, host: 'shop.example.com', path: '/api' } } }), 'Ingress');
    expect(ingress.apiVersion).toBe('networking.k8s.io/v1');
    expect(ingress.spec).toEqual({
      rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
    });
  });

  it('sets the class and TLS when given', () => {
    const ingress = byKind(
      renderSpec({ image: 'web', features: { ingress: { enabled: true, host: 'shop.example.com', className: 'nginx', tlsSecretName: 'shop-tls' } } }),
      'Ingress',
    );
    expect(ingress.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
      rules: [{ http: { paths: [{ path: '/' }] } }],
    });
  });

  it('renders nothing when disabled', () => {
    expect(renderSpec({ image: 'web', features: { ingress: { enabled: false, host: 'x' } } }).some((object) => object.kind === 'Ingress')).toBe(false);
  });
});
