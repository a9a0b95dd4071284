import type { KindPlugin } from '../kind-plugin';
import { actOnConfigWatcher } from './configwatcher-act';
import { configWatcherCrd } from './configwatcher-crd';
import {
  configWatcherGroup,
  configWatcherKind,
  configWatcherPlural,
  configWatcherSpecType,
  configWatcherVersion,
  type ConfigWatcherSpec,
  type ConfigWatcherStatus,
} from './configwatcher-types';

/**
 * configWatcherPlugin is the ConfigWatcher kind: it renders nothing and acts instead,
 * restarting workloads when its ConfigMap changes. Its ConfigMap is a referenced object, so
 * a change to it (from Git or by hand) wakes the ConfigWatcher.
 */
export const configWatcherPlugin: KindPlugin<ConfigWatcherSpec, ConfigWatcherStatus> = {
  group: configWatcherGroup,
  version: configWatcherVersion,
  kind: configWatcherKind,
  plural: configWatcherPlural,
  crd: configWatcherCrd,
  specType: configWatcherSpecType,
  applyDefaults: (spec) => ({ ...spec, strategy: spec.strategy ?? 'DeletePods' }),
  enabledFeatures: () => [],
  render: () => [],
  act: actOnConfigWatcher,
  referencedKinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  referencedObjects: (object) => [
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: object.metadata.namespace ?? 'default', name: object.spec.configMap },
  ],
};
