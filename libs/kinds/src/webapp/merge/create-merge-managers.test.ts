import { describe, expect, it } from 'vitest';
import { appContainer, webApp, type PodOwnerSpec } from '../../testing/webapp-fixtures';
import type { KubernetesManifest } from '../../kind-plugin';
import type { Components } from '../components';
import { renderBaseComponents } from '../render/base-components';
import { identityOf } from '../webapp-identity';
import { createMergeManagers } from './create-merge-managers';
import type { MergeManagers } from './merge-managers';
import { OwnershipLedger } from './ownership-ledger';

function setup() {
  const spec = { image: 'web', env: [{ name: 'BASE', value: 'base' }] };
  const components: Components = renderBaseComponents(spec, identityOf(webApp(spec)));
  const ledger = new OwnershipLedger();
  return { components, first: createMergeManagers(components, ledger, 'first'), second: createMergeManagers(components, ledger, 'second') };
}

function deployment(components: Components): KubernetesManifest & { spec: PodOwnerSpec } {
  return components.get('deployment') as KubernetesManifest & { spec: PodOwnerSpec };
}

describe('createMergeManagers', () => {
  it('adds env vars by name and overwrites a base value (feature beats base)', () => {
    const { components, first } = setup();
    first.envVar({ name: 'BASE', value: 'feature' });
    first.envVar({ name: 'NEW', value: '1' });
    expect(appContainer(deployment(components)).env).toEqual([
      { name: 'BASE', value: 'feature' },
      { name: 'NEW', value: '1' },
    ]);
  });

  it('is idempotent: two features writing the same value give one entry', () => {
    const { components, first, second } = setup();
    first.envVar({ name: 'PORT', value: '80' });
    second.envVar({ name: 'PORT', value: '80' });
    first.volume({ name: 'cache', emptyDir: {} });
    second.volume({ name: 'cache', emptyDir: {} });
    expect(appContainer(deployment(components)).env?.filter((variable) => variable.name === 'PORT')).toHaveLength(1);
    expect(deployment(components).spec.template.spec.volumes).toEqual([{ name: 'cache', emptyDir: {} }]);
  });

  it.each([
    ['env var', (m: MergeManagers, v: string) => m.envVar({ name: 'PORT', value: v }), 'deployment.spec.template.spec.containers[app].env[PORT]'],
    ['volume', (m: MergeManagers, v: string) => m.volume({ name: 'data', hostPath: { path: v } }), 'deployment.spec.template.spec.volumes[data]'],
    ['volume mount', (m: MergeManagers, v: string) => m.volumeMount({ name: v, mountPath: '/data' }), 'deployment.spec.template.spec.containers[app].volumeMounts[/data]'],
    ['container port', (m: MergeManagers, v: string) => m.containerPort({ name: 'admin', containerPort: Number(v) }), 'deployment.spec.template.spec.containers[app].ports[admin]'],
    ['service port', (m: MergeManagers, v: string) => m.servicePort({ name: 'admin', port: Number(v) }), 'service.spec.ports[admin]'],
    ['container', (m: MergeManagers, v: string) => m.container({ name: 'proxy', image: v }), 'deployment.spec.template.spec.containers[proxy]'],
    ['pod annotation', (m: MergeManagers, v: string) => m.annotation('podTemplate', 'example.com/a', v), 'deployment.spec.template.metadata.annotations[example.com/a]'],
    ['label', (m: MergeManagers, v: string) => m.label({ component: 'service' }, 'tier', v), 'service.metadata.labels[tier]'],
    ['field', (m: MergeManagers, v: string) => m.field('deployment', ['spec', 'strategy', 'type'], v), 'deployment.spec.strategy.type'],
    ['envFrom', (m: MergeManagers, v: string) => m.envFrom({ configMapRef: { name: 'shared' }, prefix: v }), 'deployment.spec.template.spec.containers[app].envFrom[configMap:shared]'],
  ])('rejects two features writing a %s differently, naming both and the key', (_name, write, key) => {
    const { first, second } = setup();
    write(first, '1');
    expect(() => write(second, '2')).toThrow(
      expect.objectContaining({ name: 'TerminalError', code: 'FeatureConflict', message: expect.stringContaining(`Features "first" and "second" both write ${key} `) }),
    );
  });

  it('lets two features write different fields of one object', () => {
    const { components, first, second } = setup();
    first.field('deployment', ['spec', 'strategy'], { type: 'RollingUpdate' });
    second.field('deployment', ['spec', 'strategy', 'rollingUpdate'], { maxSurge: 1 });
    expect(deployment(components).spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } });
  });

  it('removes a field with undefined', () => {
    const { components, first } = setup();
    first.field('deployment', ['spec', 'replicas'], undefined);
    expect('replicas' in deployment(components).spec).toBe(false);
  });

  it('addresses a sidecar container by name', () => {
    const { components, first } = setup();
    first.container({ name: 'proxy', image: 'envoy' });
    first.envVar({ name: 'UPSTREAM', value: 'localhost:8080' }, 'proxy');
    const proxy = deployment(components).spec.template.spec.containers.find((container) => container.name === 'proxy');
    expect(proxy).toEqual({ name: 'proxy', image: 'envoy', env: [{ name: 'UPSTREAM', value: 'localhost:8080' }] });
  });

  it('fails with a clear error for an unknown container or component', () => {
    const { first } = setup();
    expect(() => first.envVar({ name: 'A', value: '1' }, 'missing')).toThrow('container "missing"');
    expect(() => first.field('hpa', ['spec'], {})).toThrow('component "hpa", which is not rendered');
  });

  it('writes component metadata and pod template metadata separately', () => {
    const { components, first } = setup();
    first.annotation({ component: 'service' }, 'example.com/owner', 'team-a');
    first.annotation('podTemplate', 'example.com/owner', 'team-b');
    expect(components.get('service')?.metadata.annotations).toEqual({ 'example.com/owner': 'team-a' });
    expect(deployment(components).spec.template.metadata.annotations).toEqual({ 'example.com/owner': 'team-b' });
  });
});
