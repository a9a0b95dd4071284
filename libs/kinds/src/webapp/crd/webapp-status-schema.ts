import { pipelineStatusProperties } from '../../shared/status-schema';

/** webAppStatusSchema: the pipeline's status fields, the inventory and the ready replica count. */
export const webAppStatusSchema = {
  type: 'object',
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
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          namespace: { type: 'string' },
          name: { type: 'string' },
        },
      },
    },
    readyReplicas: { type: 'integer', format: 'int32', minimum: 0, description: 'Ready pods of the Deployment.' },
  },
};
