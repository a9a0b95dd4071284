import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { PruneHold, PruneHolds } from '@tidemark/status-store';
import { requireOperator } from '../auth/authenticate';
import { pruneInScope, type TokenScope } from '../auth/token-scope';
import type { QueueAccess } from '../view/dashboard-data';
import { layout } from '../pages/layout';
import { prunesPage } from '../pages/prunes-page';
import { DashboardError, ErrorCode } from './dashboard-error';
import { errors } from './schemas';

export interface PruneHoldRoutesOptions {
  holds: PruneHolds;
  queues: QueueAccess;
  /** The clusters whose holds are listed (each cluster's holds are indexed under its own keys). */
  clusters: () => Promise<readonly string[]>;
}

const HoldBody = Type.Object({
  source: Type.String(), cluster: Type.String(), revision: Type.String(), removed: Type.Array(Type.String()), total: Type.Integer(),
  threshold: Type.Number(), state: Type.String(), decidedAt: Type.String(), confirmedBy: Type.Optional(Type.String()), confirmedAt: Type.Optional(Type.String()),
});
const HoldParams = Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 63 }), source: Type.String({ minLength: 1, maxLength: 253 }) });

/**
 * pruneHoldRoutes shows the prunes that wait for confirmation (a revision that removes more than
 * the allowed share of a source's objects) and lets an operator confirm one: its objects are then
 * reconciled at once, and deleted.
 */
export async function pruneHoldRoutes(app: FastifyInstance, { holds, queues, clusters }: PruneHoldRoutesOptions): Promise<void> {
  // A scoped token sees (and confirms) a hold only when its scope covers every object the prune may delete.
  const visible = (hold: { source: string; cluster: string }, scope: TokenScope | undefined) => pruneInScope(scope, hold);
  const waiting = async (scope: TokenScope | undefined) => (await holds.waiting(await clusters())).filter((hold) => visible(hold, scope));
  // `decidedAt` names the hold that was shown: one decided again since (it removes more) is not confirmed by it.
  const confirm = async (params: { cluster: string; source: string }, shown: { revision: string; decidedAt?: string }, by: string, scope: TokenScope | undefined): Promise<PruneHold> => {
    const { revision } = shown;
    if (!visible(params, scope)) throw new DashboardError(ErrorCode.NotFound, 404, `No prune of source ${params.source} on cluster ${params.cluster} at revision ${revision} waits for confirmation.`);
    const hold = await holds.confirm(params.source, params.cluster, revision, by, shown.decidedAt);
    if (!hold) throw new DashboardError(ErrorCode.NotFound, 404, `No prune of source ${params.source} on cluster ${params.cluster} at revision ${revision} waits for confirmation.`);
    for (const objectKey of hold.removed) await queues.enqueue({ source: hold.source, revision: hold.revision, cluster: hold.cluster, objectKey, reason: 'manual' });
    return hold;
  };
  app.get('/api/prune-holds', { schema: { tags: ['status'], summary: 'Prunes that wait for confirmation, with every object each would delete.', response: { 200: Type.Array(HoldBody), ...errors(401) } } },
    async (request) => waiting(request.principal?.scope));
  app.post<{ Params: { cluster: string; source: string }; Querystring: { revision: string; decidedAt?: string } }>('/api/prune-holds/:cluster/:source/confirm', {
    schema: {
      tags: ['actions'], summary: 'Confirm a waiting prune at the revision shown (and, with decidedAt, only the hold shown). Needs the operator role.', params: HoldParams,
      querystring: Type.Object({ revision: Type.String({ pattern: '^[0-9a-f]{40}$' }), decidedAt: Type.Optional(Type.String({ maxLength: 64 })) }), response: { 200: HoldBody, ...errors(400, 401, 403, 404) },
    },
    preHandler: requireOperator,
  }, async (request) => confirm(request.params, request.query, request.principal?.name ?? 'unknown', request.principal?.scope));
  app.get<{ Querystring: { notice?: string } }>('/prunes', { schema: { hide: true } }, async (request, reply) => {
    const page = prunesPage(await waiting(request.principal?.scope), request.principal, request.query.notice === 'confirmed' ? 'The prune is confirmed; its objects are being deleted.' : undefined);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(layout({ title: 'Prunes', nav: 'prunes', principal: request.principal }, page).value);
  });
  app.post<{ Params: { cluster: string; source: string }; Body: { revision?: string; decidedAt?: string } }>('/prunes/:cluster/:source/confirm', {
    schema: { hide: true, params: HoldParams, body: Type.Object({ _csrf: Type.Optional(Type.String()), revision: Type.String({ pattern: '^[0-9a-f]{40}$' }), decidedAt: Type.Optional(Type.String({ maxLength: 64 })) }) },
    preHandler: requireOperator,
  }, async (request, reply) => {
    await confirm(request.params, { revision: request.body.revision ?? '', ...(request.body.decidedAt ? { decidedAt: request.body.decidedAt } : {}) }, request.principal?.name ?? 'unknown', request.principal?.scope);
    return reply.redirect('/prunes?notice=confirmed', 303);
  });
}
