import { describe, expect, it } from 'vitest';
import { configWatcherPlugin } from './configwatcher-plugin';

const object = {
  apiVersion: 'k8spatterns.com/v1',
  kind: 'ConfigWatcher',
  metadata: { name: 'webapp-config-watcher', namespace: 'operator-test' },
  spec: { configMap: 'webapp-config', podSelector: { matchLabels: { app: 'webapp' } } },
};

describe('configWatcherPlugin', () => {
  it('defaults strategy to DeletePods and keeps an explicit one', () => {
    expect(configWatcherPlugin.applyDefaults(object.spec).strategy).toBe('DeletePods');
    expect(configWatcherPlugin.applyDefaults({ ...object.spec, strategy: 'RolloutRestart' }).strategy).toBe('RolloutRestart');
  });

  it('renders nothing and has no features', () => {
    expect(configWatcherPlugin.render({ object, features: [] })).toEqual([]);
    expect(configWatcherPlugin.enabledFeatures(object.spec)).toEqual([]);
  });

  it('references the watched ConfigMap in its own namespace', () => {
    expect(configWatcherPlugin.referencedObjects?.(object)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'operator-test', name: 'webapp-config' }]);
  });
});
