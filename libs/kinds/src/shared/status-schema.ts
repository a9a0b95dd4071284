import { Type } from '@sinclair/typebox';

/**
 * Schemas of the status fields the pipeline writes for every kind. A CRD must declare them:
 * the API server prunes status fields its structural schema does not know.
 */
export const conditionsSchema = Type.Array(Type.Object({
  type: Type.String({ maxLength: 316, description: 'Ready, Reconciling, Stalled, Drifted, or a kind-specific condition.' }),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], { description: 'True, False or Unknown.' }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0, description: 'The metadata.generation this condition was set for.' })),
  reason: Type.String({ maxLength: 1024, description: 'A PascalCase word saying why, e.g. Applied, ValidationFailed, ClusterUnavailable.' }),
  message: Type.String({ maxLength: 32768, description: 'What happened, in a sentence a person can act on.' }),
  lastTransitionTime: Type.String({ format: 'date-time', description: 'When status last changed.' }),
}), {
  description: 'Ready, Reconciling and Stalled, plus kind-specific conditions.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

/** pipelineStatusProperties are the status fields the pipeline owns for every kind. */
export const pipelineStatusProperties = {
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', description: 'The metadata.generation the last reconcile acted on.' })),
  conditions: Type.Optional(conditionsSchema),
  lastAppliedRevision: Type.Optional(Type.String({ description: 'The Git revision last applied successfully.' })),
  lastAttemptedRevision: Type.Optional(Type.String({ description: 'The Git revision of the last reconcile attempt.' })),
};
