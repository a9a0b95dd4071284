import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '../../kind-plugin';
import { v1alpha1FieldsAnnotation, v1beta1FieldsAnnotation, webAppV1alpha1ToV1beta1, webAppV1beta1ToV1alpha1 } from './convert-webapp';

const alpha = 'tidemark.dev/v1alpha1';
const beta = 'tidemark.dev/v1beta1';

function object(apiVersion: string, spec: unknown, annotations?: Record<string, string>): KubernetesManifest {
  return {
    apiVersion,
    kind: 'WebApp',
    metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 3, labels: { team: 'a' }, ...(annotations ? { annotations } : {}) },
    spec,
    status: { observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True', reason: 'Applied', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  };
}

const alphaSpecs: Record<string, unknown> = {
  'image only': { image: 'nginx' },
  'image with tag and registry port': { image: 'registry.example.com:5000/shop/web:1.2.3', replicas: 2, port: 8081 },
  'image with digest': { image: 'ghcr.io/shop/web:1.0@sha256:0123456789abcdef0123456789abcdef', env: [{ name: 'A', value: '1' }] },
  'a malformed image stays whole': { image: 'web:' },
  'enabled features with settings': {
    image: 'web:1',
    features: { ingress: { enabled: true, host: 'shop.example.com', path: '/' }, metrics: { enabled: true, port: 9090, path: '/metrics' }, config: { enabled: true } },
  },
  'disabled features keep their settings': {
    image: 'web:1',
    features: { ingress: { enabled: false, host: 'old.example.com' }, autoscaling: { maxReplicas: 4 }, metrics: { enabled: true } },
  },
  'only disabled features': { image: 'web:1', features: { config: { enabled: false } } },
  'an empty feature map': { image: 'web:1', features: {} },
  'dependsOn passes through': { image: 'web:1', dependsOn: ['apps/v1/Deployment/db/postgres', 'infra:tidemark.dev/v1beta1/WebApp/shop/api'] },
  'override and resources pass through': {
    image: 'web:1',
    resources: { limits: { cpu: '500m', memory: 256 } },
    override: { deployment: { spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } } } },
  },
};

describe('WebApp conversion', () => {
  it.each(Object.entries(alphaSpecs))('v1alpha1 -> v1beta1 -> v1alpha1 is the identity: %s', (_name, spec) => {
    const original = object(alpha, spec, { 'example.com/keep': 'yes' });
    const there = webAppV1alpha1ToV1beta1(original, beta);
    expect(there.apiVersion).toBe(beta);
    expect(webAppV1beta1ToV1alpha1(there, alpha)).toEqual(original);
  });

  it('splits the image and lists only the enabled features, by name', () => {
    const converted = webAppV1alpha1ToV1beta1(object(alpha, alphaSpecs['disabled features keep their settings']), beta);
    expect(converted.spec).toEqual({ image: { repository: 'web', tag: '1' }, features: [{ name: 'metrics' }] });
    expect(JSON.parse(converted.metadata.annotations?.[v1alpha1FieldsAnnotation] ?? '')).toEqual({
      disabledFeatures: { ingress: { enabled: false, host: 'old.example.com' }, autoscaling: { maxReplicas: 4 } },
    });
    const tagged = webAppV1alpha1ToV1beta1(object(alpha, alphaSpecs['image with digest']), beta);
    expect((tagged.spec as { image: unknown }).image).toEqual({ repository: 'ghcr.io/shop/web', tag: '1.0', digest: 'sha256:0123456789abcdef0123456789abcdef' });
  });

  it('adds no annotation when nothing is lost', () => {
    const converted = webAppV1alpha1ToV1beta1(object(alpha, alphaSpecs['enabled features with settings']), beta);
    expect(converted.metadata.annotations).toBeUndefined();
    expect((converted.spec as { features: unknown }).features).toEqual([
      { name: 'config' },
      { name: 'ingress', ingress: { host: 'shop.example.com', path: '/' } },
      { name: 'metrics', metrics: { port: 9090, path: '/metrics' } },
    ]);
  });

  const betaSpecs: Record<string, unknown> = {
    'pull policy': { image: { repository: 'web', tag: '2', pullPolicy: 'Always' } },
    'features in their own order, one with empty settings': {
      image: { repository: 'web', digest: 'sha256:00' },
      features: [{ name: 'metrics', metrics: { port: 9100 } }, { name: 'config', config: {} }, { name: 'autoscaling', autoscaling: { maxReplicas: 3 } }],
    },
    'an empty feature list': { image: { repository: 'web' }, features: [] },
    'dependsOn, unchanged in both versions': { image: { repository: 'web' }, dependsOn: ['apps/v1/Deployment/db/postgres'] },
  };

  it.each(Object.entries(betaSpecs))('v1beta1 -> v1alpha1 -> v1beta1 is the identity: %s', (_name, spec) => {
    const original = object(beta, spec);
    const there = webAppV1beta1ToV1alpha1(original, alpha);
    expect(webAppV1alpha1ToV1beta1(there, beta)).toEqual(original);
  });

  it('keeps what v1alpha1 cannot say in an annotation', () => {
    const converted = webAppV1beta1ToV1alpha1(object(beta, betaSpecs['pull policy']), alpha);
    expect(converted.spec).toEqual({ image: 'web:2' });
    expect(JSON.parse(converted.metadata.annotations?.[v1beta1FieldsAnnotation] ?? '')).toEqual({ imagePullPolicy: 'Always' });
  });

  it('names the object when its conversion annotation is not JSON', () => {
    expect(() => webAppV1beta1ToV1alpha1(object(beta, { image: { repository: 'web' } }, { [v1alpha1FieldsAnnotation]: '{oops' }), alpha)).toThrow(
      `WebApp shop/web: annotation ${v1alpha1FieldsAnnotation} is not a JSON object`,
    );
  });
});
