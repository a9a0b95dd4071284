/**
 * Schemas of the status fields the pipeline writes for every kind. A CRD must declare them:
 * the API server prunes status fields its structural schema does not know.
 */
export const conditionsSchema = {
  type: 'array',
  description: 'Ready, Reconciling and Stalled, plus kind-specific conditions.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
    properties: {
      type: { type: 'string', maxLength: 316, description: 'Ready, Reconciling, Stalled, Drifted, or a kind-specific condition.' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'True, False or Unknown.' },
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The metadata.generation this condition was set for.' },
      reason: { type: 'string', maxLength: 1024, description: 'A PascalCase word saying why, e.g. Applied, ValidationFailed, ClusterUnavailable.' },
      message: { type: 'string', maxLength: 32768, description: 'What happened, in a sentence a person can act on.' },
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'When status last changed.' },
    },
  },
} as const;

/** pipelineStatusProperties are the status fields the pipeline owns for every kind. */
export const pipelineStatusProperties = {
  observedGeneration: { type: 'integer', format: 'int64', description: 'The metadata.generation the last reconcile acted on.' },
  conditions: conditionsSchema,
  lastAppliedRevision: { type: 'string', description: 'The Git revision last applied successfully.' },
  lastAttemptedRevision: { type: 'string', description: 'The Git revision of the last reconcile attempt.' },
} as const;
