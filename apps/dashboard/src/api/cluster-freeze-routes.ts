import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { maxFreezeReasonLength } from '@tidemark/contracts';
import { requireOperator } from '../auth/authenticate';
import type { ClusterFreezes } from '../view/cluster-freezes';
import { errors } from './schemas';

export interface ClusterFreezeRoutesOptions {
  freezes: ClusterFreezes;
}

const ClusterParams = Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 63 }) });
const Reason = Type.String({ minLength: 1, maxLength: maxFreezeReasonLength, description: 'Why nothing may be written to the cluster; shown on every object it holds back.' });
const FreezeBody = Type.Object({
  cluster: Type.String(), by: Type.String(), reason: Type.String(), since: Type.String({ description: 'When it was set (RFC 3339).' }),
});
export const FreezeResultBody = Type.Object({
  action: Type.String(), cluster: Type.String(), frozen: Type.Boolean(), freeze: Type.Optional(FreezeBody),
  woken: Type.Optional(Type.Integer({ description: 'Objects of the cluster asked to reconcile again.' })),
});
const actionSummary = (summary: string) => `${summary} Needs the operator role and a token not limited to some sources; cookie sessions send X-CSRF-Token.`;

/**
 * clusterFreezeRoutes freeze and unfreeze a cluster: while frozen, the reconciler writes nothing
 * to it (no apply, no prune, no status or Event) and its objects wait with reason ClusterFrozen.
 * The JSON routes are under /api; the form posts of the cluster page redirect back to it.
 */
export async function clusterFreezeRoutes(app: FastifyInstance, { freezes }: ClusterFreezeRoutesOptions): Promise<void> {
  app.get<{ Params: { cluster: string } }>('/api/clusters/:cluster/freeze', {
    schema: { tags: ['status'], summary: 'A cluster\'s freeze: who set it, why and since when; frozen is false when it is open.', params: ClusterParams, response: { 200: FreezeResultBody, ...errors(400, 401) } },
  }, async (request) => {
    const freeze = await freezes.freezeOf(request.params.cluster);
    return { action: 'read', cluster: request.params.cluster, frozen: freeze !== undefined, ...(freeze ? { freeze } : {}) };
  });
  app.post<{ Params: { cluster: string }; Body: { reason: string } }>('/api/clusters/:cluster/freeze', {
    schema: {
      tags: ['actions'], summary: actionSummary('Freeze a cluster: nothing is applied or pruned there until it is unfrozen.'),
      params: ClusterParams, body: Type.Object({ reason: Reason }), response: { 200: FreezeResultBody, ...errors(400, 401, 403, 404) },
    },
    preHandler: requireOperator,
  }, async (request) => freezes.freeze(request.params.cluster, request.body.reason, request.principal));
  app.post<{ Params: { cluster: string } }>('/api/clusters/:cluster/unfreeze', {
    schema: {
      tags: ['actions'], summary: actionSummary('Unfreeze a cluster and reconcile its objects now.'),
      params: ClusterParams, response: { 200: FreezeResultBody, ...errors(400, 401, 403, 404, 503) },
    },
    preHandler: requireOperator,
  }, async (request) => freezes.unfreeze(request.params.cluster, request.principal));

  app.post<{ Params: { cluster: string }; Body: { reason: string } }>('/clusters/:cluster/freeze', {
    schema: { hide: true, params: ClusterParams, body: Type.Object({ _csrf: Type.Optional(Type.String()), reason: Reason }) },
    preHandler: requireOperator,
  }, async (request, reply) => {
    await freezes.freeze(request.params.cluster, request.body.reason, request.principal);
    return reply.redirect(`/clusters/${encodeURIComponent(request.params.cluster)}`, 303);
  });
  app.post<{ Params: { cluster: string } }>('/clusters/:cluster/unfreeze', {
    schema: { hide: true, params: ClusterParams, body: Type.Object({ _csrf: Type.Optional(Type.String()) }) },
    preHandler: requireOperator,
  }, async (request, reply) => {
    await freezes.unfreeze(request.params.cluster, request.principal);
    return reply.redirect(`/clusters/${encodeURIComponent(request.params.cluster)}`, 303);
  });
}
