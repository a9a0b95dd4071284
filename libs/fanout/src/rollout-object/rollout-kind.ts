import { Type, type Static } from '@sinclair/typebox';

export const rolloutGroup = 'tidemark.dev';
export const rolloutVersion = 'v1alpha1';
export const rolloutApiVersion = `${rolloutGroup}/${rolloutVersion}`;
export const rolloutKind = 'Rollout';
/** The key prefix of a Rollout object in a source's listing (any namespace). */
export const rolloutKeyPrefix = `${rolloutGroup}/${rolloutKind}/`;

const labelSelector = Type.Object({
  matchLabels: Type.Optional(Type.Record(Type.String({ maxLength: 317 }), Type.String({ maxLength: 63 }))),
  matchExpressions: Type.Optional(Type.Array(Type.Object({
    key: Type.String({ minLength: 1, maxLength: 317 }),
    operator: Type.Union([Type.Literal('In'), Type.Literal('NotIn'), Type.Literal('Exists'), Type.Literal('DoesNotExist')]),
    values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 100 })),
  }, { additionalProperties: false }), { maxItems: 20 })),
}, { additionalProperties: false, description: 'The clusters of the wave, by their labels; empty selects every cluster.' });

/** RolloutWaveSpec is one wave: the fields of a tidemark.yaml rollout's wave (docs/rollouts.md). */
export const RolloutWaveSpec = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$', description: 'The wave\'s name, such as canary; a wave of the operator\'s policy is named to add to it.' }),
  clusterSelector: Type.Optional(labelSelector),
  maxParallel: Type.Optional(Type.Union([
    Type.Integer({ minimum: 1, maximum: 10_000 }),
    Type.String({ pattern: '^[0-9]{1,3}%$' }),
  ], { description: 'Clusters applied at once: a count, or a percentage of the wave such as "25%".' })),
  gateTimeoutMs: Type.Optional(Type.Integer({ minimum: 1_000, maximum: 604_800_000, description: 'How long a batch may take to be Ready before the rollout halts.' })),
  soakMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800_000, description: 'How long a passed wave is watched before the next starts.' })),
  approval: Type.Optional(Type.Boolean({ description: 'The wave waits for an operator before its first cluster.' })),
}, { additionalProperties: false });

/**
 * RolloutObjectSpec is a Rollout object's spec, read from a source's Git like Placement (never
 * applied): the same policy as a tidemark.yaml `rollouts` entry, for the source it is in. Where the
 * operator configured one too, this one can only add to it (rollout-precedence.ts).
 */
export const RolloutObjectSpec = Type.Object({
  waves: Type.Optional(Type.Array(RolloutWaveSpec, { minItems: 1, maxItems: 20 })),
  manualSync: Type.Optional(Type.Boolean({ description: 'Every new revision waits for an operator\'s sync (one wave of every cluster with an approval).' })),
}, { additionalProperties: false });
export type RolloutObjectSpec = Static<typeof RolloutObjectSpec>;
