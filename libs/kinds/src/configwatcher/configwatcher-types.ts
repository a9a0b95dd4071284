import { Type, type Static } from '@sinclair/typebox';
import { pipelineStatusProperties } from '../shared/status-schema';

/**
 * ConfigWatcherSpecSchema is spec of a ConfigWatcher, as in the original example plus `strategy`;
 * the CRD, ConfigWatcherSpec and the registry's check come from it. The Korean descriptions are the
 * seed's, verbatim.
 */
export const ConfigWatcherSpecSchema = Type.Object({
  configMap: Type.String({ description: '감시할 ConfigMap 이름' }),
  podSelector: Type.Object({
    matchLabels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Labels a pod must all carry to be restarted.' })),
  }, { description: '재시작할 Pod의 라벨 선택자' }),
  strategy: Type.Optional(Type.Union([Type.Literal('DeletePods'), Type.Literal('RolloutRestart')], {
    default: 'DeletePods',
    description: 'How to restart workloads when the ConfigMap changes: DeletePods deletes the selected pods; RolloutRestart restarts the Deployments whose pod template matches the selector.',
  })),
}, { description: 'Which ConfigMap to watch and which pods to restart when it changes.' });

/**
 * configWatcherSpecType is what the registry checks when it parses a CR: the spec schema, and a
 * configMap that is not empty (the seed's CRD, kept verbatim, lets an empty name through).
 */
export const configWatcherSpecType = Type.Object({ ...ConfigWatcherSpecSchema.properties, configMap: Type.String({ minLength: 1 }) });

/** ConfigWatcherStatusSchema adds ConfigWatcher's own fields to those the pipeline writes. */
export const ConfigWatcherStatusSchema = Type.Object({
  ...pipelineStatusProperties,
  lastConfigMapHash: Type.Optional(Type.String({ description: 'sha256 of the ConfigMap data and binaryData last acted on.' })),
  restarts: Type.Optional(Type.Integer({ format: 'int64', minimum: 0, description: 'How many times the selected workloads were restarted.' })),
  lastRestartTime: Type.Optional(Type.String({ format: 'date-time', description: 'When the selected workloads were last restarted.' })),
  lastConfigMapResourceVersion: Type.Optional(Type.String({ description: 'The ConfigMap resourceVersion at which lastConfigMapHash was recorded.' })),
}, { description: 'What Tidemark last observed and did for this ConfigWatcher.' });

/** RestartStrategy says how a ConfigWatcher restarts workloads when its ConfigMap changes. */
export type RestartStrategy = NonNullable<ConfigWatcherSpec['strategy']>;

/** ConfigWatcherSpec is spec of a ConfigWatcher; strategy defaults to DeletePods, the original behaviour. */
export type ConfigWatcherSpec = Static<typeof ConfigWatcherSpecSchema>;

/**
 * ConfigWatcherStatus is what act() records between runs (all four set together): a later
 * lastConfigMapResourceVersion with the same hash means the ConfigMap changed and came back.
 */
export type ConfigWatcherStatus = Required<Pick<Static<typeof ConfigWatcherStatusSchema>, 'lastConfigMapHash' | 'restarts' | 'lastRestartTime' | 'lastConfigMapResourceVersion'>>;

export const configWatcherGroup = 'k8spatterns.com';
export const configWatcherVersion = 'v1';
export const configWatcherKind = 'ConfigWatcher';
export const configWatcherPlural = 'configwatchers';
