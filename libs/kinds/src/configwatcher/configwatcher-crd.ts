import { Type } from '@sinclair/typebox';
import { customResourceDefinition } from '@tidemark/contracts';
import { ConfigWatcherSpecSchema, ConfigWatcherStatusSchema, configWatcherGroup, configWatcherKind, configWatcherPlural, configWatcherVersion } from './configwatcher-types';

/**
 * configWatcherCrd is the CRD of the original Operator-pattern example, unchanged (so the
 * seed CR stays valid and the Korean descriptions stay verbatim), plus three additions: a
 * status subresource with its schema, and an optional `spec.strategy`. A test compares it
 * with seed-configwatcher/crd.yaml so the two cannot drift apart.
 */
export const configWatcherCrd = customResourceDefinition({
  group: configWatcherGroup,
  scope: 'Namespaced',
  names: { kind: configWatcherKind, singular: 'configwatcher', plural: configWatcherPlural, shortNames: ['cw'] },
  versions: [{
    name: configWatcherVersion,
    storage: true,
    statusSubresource: true,
    // The seed's root has neither apiVersion, kind nor metadata, and spec is not required.
    schema: Type.Object({ spec: Type.Optional(ConfigWatcherSpecSchema), status: Type.Optional(ConfigWatcherStatusSchema) }, {
      description: 'ConfigWatcher restarts the pods that match podSelector when the named ConfigMap changes (the Operator-pattern example, reconciled by Tidemark).',
    }),
    // The seed's one column by default; -o wide adds what Tidemark observed.
    columns: [
      { name: 'ConfigMap', type: 'string', jsonPath: '.spec.configMap' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1, description: 'Whether the last reconcile succeeded.' },
      { name: 'Restarts', type: 'integer', jsonPath: '.status.restarts', priority: 1, description: 'How many times the selected workloads were restarted.' },
      { name: 'Last Restart', type: 'date', jsonPath: '.status.lastRestartTime', priority: 1, description: 'When they were last restarted.' },
    ],
  }],
});
