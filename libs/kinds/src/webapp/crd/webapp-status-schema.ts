import { pipelineStatusProperties } from '../../shared/status-schema';

/** webAppStatusSchema: the pipeline's status fields, the inventory and the ready replica count. */
export const webAppStatusSchema = {
  type: 'object',
  description: 'What Tidemark last observed and did for this WebApp; written by the reconciler, never by hand.',
  properties: {
    ...pipelineStatusProperties,
    inventory: {
      type: 'array',
      description: 'The objects last applied for this WebApp; those that leave it are pruned.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name'],
        properties: {
          apiVersion: { type: 'string', description: 'API version of the applied object.' },
          kind: { type: 'string', description: 'Kind of the applied object.' },
          namespace: { type: 'string', description: 'Its namespace; empty for cluster-scoped objects.' },
          name: { type: 'string', description: 'Its name.' },
        },
      },
    },
    readyReplicas: { type: 'integer', format: 'int32', minimum: 0, description: 'Ready pods of the Deployment.' },
  },
};
