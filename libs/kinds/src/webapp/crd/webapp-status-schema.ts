import { Type } from '@sinclair/typebox';
import { pipelineStatusProperties } from '../../shared/status-schema';

/** webAppStatusSchema: the pipeline's status fields, the inventory and the ready replica count. */
export const webAppStatusSchema = Type.Object({
  ...pipelineStatusProperties,
  inventory: Type.Optional(Type.Array(Type.Object({
    apiVersion: Type.String({ description: 'API version of the applied object.' }),
    kind: Type.String({ description: 'Kind of the applied object.' }),
    namespace: Type.Optional(Type.String({ description: 'Its namespace; empty for cluster-scoped objects.' })),
    name: Type.String({ description: 'Its name.' }),
  }), {
    description: 'The objects last applied for this WebApp; those that leave it are pruned.',
    'x-kubernetes-list-type': 'atomic',
  })),
  readyReplicas: Type.Optional(Type.Integer({ format: 'int32', minimum: 0, description: 'Ready pods of the Deployment.' })),
}, { description: 'What Tidemark last observed and did for this WebApp; written by the reconciler, never by hand.' });
