import { Type } from '@sinclair/typebox';
import { contentHash } from '@tidemark/contracts';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** ConfigSettings is spec.features.config. */
export type ConfigSettings = { enabled: boolean; data: Record<string, string>; mountPath: string };

const id = 'config';

/** configHashAnnotation on the pod template changes with the data, so a config change rolls the pods. */
export const configHashAnnotation = 'tidemark.dev/config-hash';

/**
 * configFeature renders spec.features.config.data as a ConfigMap, mounts it as files and
 * exposes its keys as environment variables. Pods read a ConfigMap only at start (env) or
 * late (files), so the data hash on the pod template is what makes a change take effect.
 */
export const configFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn the config feature on.' })),
    data: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Keys and values of the ConfigMap: each key becomes a file under mountPath and an environment variable.' })),
    mountPath: Type.Optional(Type.String({ default: '/etc/config', pattern: '^/', description: 'Directory the data is mounted at in the app container.' })),
  }, { description: 'Configuration data, mounted as files and exposed as environment variables; a change restarts the pods.' }),
  components: [{ name: 'configMap', apiVersion: 'v1', kind: 'ConfigMap' }],
  configure: () => ['configMap'],
  manage({ spec, identity }, managers) {
    const settings = settingsOf<ConfigSettings>(spec, id);
    const data = settings.data ?? {};
    managers.field('configMap', ['data'], data);
    managers.annotation('podTemplate', configHashAnnotation, contentHash(data));
    managers.volume({ name: 'config', configMap: { name: identity.name } });
    managers.volumeMount({ name: 'config', mountPath: settings.mountPath ?? '/etc/config', readOnly: true });
    managers.envFrom({ configMapRef: { name: identity.name } });
  },
};
