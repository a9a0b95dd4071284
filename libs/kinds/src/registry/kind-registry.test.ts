import { TerminalError } from '@tidemark/contracts';
import { describe, expect, it } from 'vitest';
import type { KindPlugin } from '../kind-plugin';
import { createDefaultRegistry } from './create-default-registry';
import { KindRegistry } from './kind-registry';

const widgetPlugin: KindPlugin<{ size: number }> = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  crd: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' } },
  applyDefaults: (spec) => spec,
  enabledFeatures: () => [],
  render: () => [],
};

describe('KindRegistry', () => {
  it('finds a plugin by apiVersion and kind, and nothing for plain manifests', () => {
    const registry = new KindRegistry().register(widgetPlugin);
    expect(registry.pluginFor('example.com/v1', 'Widget')).toBe(widgetPlugin);
    expect(registry.pluginFor('example.com/v2', 'Widget')).toBeUndefined();
    expect(registry.pluginFor('apps/v1', 'Deployment')).toBeUndefined();
  });

  it('refuses to register a kind twice', () => {
    const registry = new KindRegistry().register(widgetPlugin);
    expect(() => registry.register(widgetPlugin)).toThrow(TerminalError);
  });

  it('lists plugins in registration order', () => {
    const registry = createDefaultRegistry().register(widgetPlugin);
    expect(registry.list().map((plugin) => plugin.kind)).toEqual(['ConfigWatcher', 'WebApp', 'Widget']);
  });
});

describe('createDefaultRegistry', () => {
  it('registers ConfigWatcher and WebApp, each call a fresh registry', () => {
    const registry = createDefaultRegistry();
    expect(registry.pluginFor('k8spatterns.com/v1', 'ConfigWatcher')?.plural).toBe('configwatchers');
    expect(registry.pluginFor('tidemark.dev/v1alpha1', 'WebApp')?.plural).toBe('webapps');
    registry.register(widgetPlugin);
    expect(createDefaultRegistry().pluginFor('example.com/v1', 'Widget')).toBeUndefined();
  });
});
