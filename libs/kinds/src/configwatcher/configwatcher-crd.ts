import type { KubernetesManifest } from '../kind-plugin';
import { pipelineStatusProperties } from '../shared/status-schema';
import { configWatcherGroup, configWatcherKind, configWatcherPlural, configWatcherVersion } from './configwatcher-types';

/** configWatcherStatusSchema adds ConfigWatcher's own fields to those the pipeline writes. */
const configWatcherStatusSchema = {
  type: 'object',
  description: 'What Tidemark last observed and did for this ConfigWatcher.',
  properties: {
    ...pipelineStatusProperties,
    lastConfigMapHash: { type: 'string', description: 'sha256 of the ConfigMap data and binaryData last acted on.' },
    restarts: { type: 'integer', format: 'int64', minimum: 0, description: 'How many times the selected workloads were restarted.' },
    lastRestartTime: { type: 'string', format: 'date-time', description: 'When the selected workloads were last restarted.' },
    lastConfigMapResourceVersion: { type: 'string', description: 'The ConfigMap resourceVersion at which lastConfigMapHash was recorded.' },
  },
};

/**
 * configWatcherCrd is the CRD of the original Operator-pattern example, unchanged (so the
 * seed CR stays valid and the Korean descriptions stay verbatim), plus three additions: a
 * status subresource with its schema, and an optional `spec.strategy`. A test compares it
 * with seed-configwatcher/crd.yaml so the two cannot drift apart.
 */
export const configWatcherCrd: KubernetesManifest = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${configWatcherPlural}.${configWatcherGroup}` },
  spec: {
    scope: 'Namespaced',
    group: configWatcherGroup,
    versions: [
      {
        name: configWatcherVersion,
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'ConfigWatcher restarts the pods that match podSelector when the named ConfigMap changes (the Operator-pattern example, reconciled by Tidemark).',
            properties: {
              spec: {
                type: 'object',
                description: 'Which ConfigMap to watch and which pods to restart when it changes.',
                properties: {
                  configMap: { type: 'string', description: '감시할 ConfigMap 이름' },
                  podSelector: {
                    type: 'object',
                    description: '재시작할 Pod의 라벨 선택자',
                    properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' }, description: 'Labels a pod must all carry to be restarted.' } },
                  },
                  strategy: {
                    type: 'string',
                    enum: ['DeletePods', 'RolloutRestart'],
                    default: 'DeletePods',
                    description: 'How to restart workloads when the ConfigMap changes: DeletePods deletes the selected pods; RolloutRestart restarts the Deployments whose pod template matches the selector.',
                  },
                },
                required: ['configMap', 'podSelector'],
              },
              status: configWatcherStatusSchema,
            },
          },
        },
        subresources: { status: {} },
        // The seed's one column by default; -o wide adds what Tidemark observed.
        additionalPrinterColumns: [
          { name: 'ConfigMap', type: 'string', jsonPath: '.spec.configMap' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1, description: 'Whether the last reconcile succeeded.' },
          { name: 'Restarts', type: 'integer', jsonPath: '.status.restarts', priority: 1, description: 'How many times the selected workloads were restarted.' },
          { name: 'Last Restart', type: 'date', jsonPath: '.status.lastRestartTime', priority: 1, description: 'When they were last restarted.' },
        ],
      },
    ],
    names: {
      kind: configWatcherKind,
      singular: 'configwatcher',
      plural: configWatcherPlural,
      shortNames: ['cw'],
    },
  },
};
