import { describe, expect, it } from 'vitest';
import { contentHash } from '@tidemark/contracts';
import { appContainer, byKind, renderSpec } from '../../testing/webapp-fixtures';
import { configHashAnnotation } from './config-feature';

function render(data: Record<string, string>, mountPath?: string) {
  return renderSpec({ image: 'web', features: { config: { enabled: true, data, ...(mountPath ? { mountPath } : {}) } } });
}

function configHash(data: Record<string, string>): string | undefined {
  return byKind(render(data), 'Deployment').spec.template.metadata.annotations?.[configHashAnnotation];
}

describe('configFeature', () => {
  const objects = render({ 'app.properties': 'color=blue', GREETING: 'hello' });

  it('renders the data as a ConfigMap named after the WebApp', () => {
    const configMap = objects.find((object) => object.kind === 'ConfigMap');
    expect(configMap).toMatchObject({ apiVersion: 'v1', metadata: { name: 'web', namespace: 'shop' }, data: { 'app.properties': 'color=blue', GREETING: 'hello' } });
  });

  it('mounts the ConfigMap read-only and exposes it as env', () => {
    const deployment = byKind(objects, 'Deployment');
    expect(deployment.spec.template.spec.volumes).toEqual([{ name: 'config', configMap: { name: 'web' } }]);
    expect(appContainer(deployment).volumeMounts).toEqual([{ name: 'config', mountPath: '/etc/config', readOnly: true }]);
    expect(appContainer(deployment).envFrom).toEqual([{ configMapRef: { name: 'web' } }]);
  });

  it('honours mountPath', () => {
    expect(appContainer(byKind(render({ a: '1' }, '/config'), 'Deployment')).volumeMounts).toEqual([{ name: 'config', mountPath: '/config', readOnly: true }]);
  });

  it('annotates the pod template with the hash of the data', () => {
    expect(configHash({ GREETING: 'hello' })).toBe(contentHash({ GREETING: 'hello' }));
    expect(configHash({ GREETING: 'hello' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes the hash when the data changes, so the pods roll', () => {
    expect(configHash({ GREETING: 'hello' })).not.toBe(configHash({ GREETING: 'hi' }));
    expect(configHash({ GREETING: 'hello' })).not.toBe(configHash({ GREETING: 'hello', EXTRA: '' }));
  });

  it('keeps the hash when only the key order changes', () => {
    expect(configHash({ a: '1', b: '2' })).toBe(configHash({ b: '2', a: '1' }));
  });
});
