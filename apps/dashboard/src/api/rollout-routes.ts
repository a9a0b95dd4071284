import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { rolloutCommandVerbs, rolloutPhases, type RolloutCommandVerb } from '@tidemark/contracts';
import { requireOperator } from '../auth/authenticate';
import type { RolloutActions } from '../view/rollouts';
import type { PendingRevisions } from '../view/pending-revisions';
import { errors } from './schemas';
import { layout } from '../pages/layout';
import { rolloutsPage } from '../pages/rollouts-page';

export interface RolloutRoutesOptions {
  rollouts: RolloutActions;
  /** A pending revision's preview (shown on the page, asked for by an operator). */
  pending: PendingRevisions;
}

const SourceParams = Type.Object({ source: Type.String({ minLength: 1, maxLength: 253 }) });
const VerbParams = Type.Object({ source: Type.String({ minLength: 1, maxLength: 253 }), verb: Type.Union(rolloutCommandVerbs.map((verb) => Type.Literal(verb))) });
const Revision = Type.String({ pattern: '^[0-9a-f]{40}$' });
const Cell = Type.Object({ wave: Type.Integer(), state: Type.String(), reachedAt: Type.Optional(Type.String()), readyAt: Type.Optional(Type.String()) });
export const RolloutBody = Type.Object({
  source: Type.String(), revision: Revision, previous: Type.Optional(Revision),
  phase: Type.Union(rolloutPhases.map((phase) => Type.Literal(phase))), paused: Type.Boolean(), wave: Type.Integer(),
  waves: Type.Array(Type.Object({ name: Type.String(), clusters: Type.Array(Type.String()) })),
  batch: Type.Array(Type.String()),
  targets: Type.Record(Type.String(), Revision, { description: 'Each cluster\'s target revision: the one revision its jobs of this source apply.' }),
  cells: Type.Record(Type.String(), Cell),
  phaseSince: Type.String(), soakUntil: Type.Optional(Type.String()),
  halt: Type.Optional(Type.Object({ cluster: Type.String(), objectKey: Type.Optional(Type.String()), reason: Type.String(), at: Type.String() })),
  held: Type.Optional(Type.Object({ cluster: Type.String(), reason: Type.String(), since: Type.String() }, { description: 'A sync window or freeze holds a cluster of the batch: the rollout waits and its gate\'s clock stands still.' })),
  lastAction: Type.Optional(Type.Object({ action: Type.String(), by: Type.String(), at: Type.String() })),
  startedAt: Type.String(), updatedAt: Type.String(),
});
const CommandResult = Type.Object({ action: Type.String(), source: Type.String(), revision: Revision, queued: Type.Literal(true) });

/**
 * rolloutRoutes show each source's rollout (waves, each cluster's target and state, why it halted)
 * and take operators' actions on it: promote (past a soak or an approval), sync (a manual sync's
 * approval), pause, resume (a pause, or a halted gate once more) and abort (every reached cluster
 * back to the last good revision). Actions need the operator role and are audited as rollout.<verb>.
 */
export async function rolloutRoutes(app: FastifyInstance, { rollouts, pending }: RolloutRoutesOptions): Promise<void> {
  app.get('/api/rollouts', {
    schema: { tags: ['status'], summary: 'Every source\'s rollout in waves.', response: { 200: Type.Object({ rollouts: Type.Array(RolloutBody) }), ...errors(401) } },
  }, async () => ({ rollouts: await rollouts.list() }));
  app.get<{ Params: { source: string } }>('/api/rollouts/:source', {
    schema: { tags: ['status'], summary: 'A source\'s rollout: its waves, each cluster\'s target revision and state, and why it halted.', params: SourceParams, response: { 200: RolloutBody, ...errors(401, 404, 409) } },
  }, async (request) => rollouts.get(request.params.source));
  app.post<{ Params: { source: string; verb: RolloutCommandVerb }; Body: { revision?: string } | undefined }>('/api/rollouts/:source/:verb', {
    schema: {
      tags: ['actions'],
      summary: 'Promote, sync, pause, resume or abort a source\'s rollout; queued for the rollout driver, which takes it within a second. Needs the operator role and a token not limited to some sources; cookie sessions send X-CSRF-Token.',
      params: VerbParams, body: Type.Optional(Type.Object({ revision: Type.Optional(Revision) })), response: { 202: CommandResult, ...errors(400, 401, 403, 404, 409) },
    },
    preHandler: requireOperator,
  }, async (request, reply) => reply.status(202).send(await rollouts.command(request.params.source, request.params.verb, request.principal, request.body?.revision)));

  // The page: waves × clusters per source, with the operator's forms, which post back and return to it.
  app.get('/rollouts', { schema: { hide: true } }, async (request, reply) => {
    const records = await rollouts.list();
    const previews = await pending.previewsOf(records, request.principal);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store')
      .send(layout({ title: 'Rollouts', nav: 'rollouts', live: 'refresh', principal: request.principal }, rolloutsPage(records, request.principal, previews)).value);
  });
  // A pending revision's preview, asked for again by an operator (audited as preview.request).
  app.post<{ Params: { source: string } }>('/rollouts/:source/preview', {
    schema: { hide: true, params: SourceParams, body: Type.Object({ _csrf: Type.Optional(Type.String()) }) },
    preHandler: requireOperator,
  }, async (request, reply) => {
    await pending.preview(request.params.source, request.principal);
    return reply.redirect('/rollouts', 303);
  });
  app.post<{ Params: { source: string; verb: RolloutCommandVerb }; Body: { revision?: string } }>('/rollouts/:source/:verb', {
    schema: { hide: true, params: VerbParams, body: Type.Object({ _csrf: Type.Optional(Type.String()), revision: Type.Optional(Revision) }) },
    preHandler: requireOperator,
  }, async (request, reply) => {
    await rollouts.command(request.params.source, request.params.verb, request.principal, request.body.revision);
    return reply.redirect('/rollouts', 303);
  });
}
