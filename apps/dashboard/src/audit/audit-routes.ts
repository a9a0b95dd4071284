import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AuditFilter, AuditLog } from '@tidemark/status-store';
import { DashboardError, ErrorCode } from '../api/dashboard-error';
import { errors } from '../api/schemas';
import { layout } from '../pages/layout';
import { auditPage } from '../pages/audit-page';
import { auditEntryOf } from './audited-request';
import { auditEventOf, type AuditEvent } from './audit-events';

export interface AuditRoutesOptions {
  audit: AuditLog;
}

const AuditQuery = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 200 })),
  action: Type.Optional(Type.String({ maxLength: 200 })),
  target: Type.Optional(Type.String({ maxLength: 1024 })),
  result: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('denied'), Type.Literal('error'), Type.Literal('')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
}, { additionalProperties: false });
type AuditQuery = Static<typeof AuditQuery>;

const AuditRecordBody = Type.Object({
  id: Type.String(), at: Type.String(), action: Type.String(), result: Type.String(), status: Type.Integer(),
  actor: Type.Object({ name: Type.String(), role: Type.Optional(Type.String()), via: Type.Optional(Type.String()), groups: Type.Optional(Type.Array(Type.String())) }),
  target: Type.Object({ type: Type.String(), name: Type.String(), cluster: Type.Optional(Type.String()) }),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  requestId: Type.Optional(Type.String()), client: Type.Optional(Type.String()), prev: Type.String(), hash: Type.String(),
});
const VerdictBody = Type.Object({
  ok: Type.Boolean(), checked: Type.Integer(),
  broken: Type.Optional(Type.Object({ id: Type.String(), reason: Type.String() })),
});

/**
 * Announce writes an audited action's Kubernetes Event on the live object, when it can; it never
 * throws (what it could not do it logs at debug, through the request's logger).
 */
export type Announce = (event: AuditEvent, request: FastifyRequest) => Promise<void>;

/**
 * recordActions is an onSend hook: every state-changing request of the scope, done or refused,
 * becomes one audit record (and one JSON log line) before its answer leaves, so a client that
 * got an answer can read the record. A failed write is logged, not turned into a failed action.
 * A done action on one object is also announced as a Kubernetes Event (auditEventOf says which),
 * started here and not awaited: the answer never waits for the cluster.
 */
export function recordActions(audit: AuditLog, announce?: Announce) {
  return async (request: FastifyRequest, reply: { statusCode: number }, payload: unknown): Promise<unknown> => {
    const entry = auditEntryOf(request, reply.statusCode);
    if (!entry) return payload;
    const event = announce ? auditEventOf(entry) : undefined;
    if (announce && event) void announce(event, request);
    try {
      const record = await audit.append(entry);
      request.log.info({ audit: record }, `audit: ${record.actor.name} ${record.action} ${record.target.name}: ${record.result}`);
    } catch (error) {
      request.log.error({ err: error, audit: entry }, 'audit: the record could not be written');
    }
    return payload;
  };
}

// The trail names every source and every actor: a token limited to some sources reads none of it.
function checkUnscoped(request: FastifyRequest): void {
  if (request.principal?.scope) throw new DashboardError(ErrorCode.Forbidden, 403, 'The audit trail names every source; a token limited to some sources may not read it.');
}

function filterOf(query: AuditQuery): AuditFilter {
  return { ...(query.actor ? { actor: query.actor } : {}), ...(query.action ? { action: query.action } : {}), ...(query.target ? { target: query.target } : {}), ...(query.result ? { result: query.result } : {}), limit: query.limit ?? 100 };
}

/** auditRoutes: the trail as JSON (/api/audit), its chain check (/api/audit/verify), and the /audit page. */
export async function auditRoutes(app: FastifyInstance, { audit }: AuditRoutesOptions): Promise<void> {
  app.get<{ Querystring: AuditQuery }>('/api/audit', {
    schema: { tags: ['audit'], summary: 'Audit records, newest first, filtered by actor, action, target (substrings) and result.', querystring: AuditQuery, response: { 200: Type.Array(AuditRecordBody), ...errors(400, 401, 403) } },
  }, async (request) => {
    checkUnscoped(request);
    return audit.list(filterOf(request.query));
  });
  app.get('/api/audit/verify', {
    schema: { tags: ['audit'], summary: 'Check the audit chain: the first record deleted or edited, if any.', response: { 200: VerdictBody, ...errors(401, 403) } },
  }, async (request) => {
    checkUnscoped(request);
    return audit.verify();
  });
  app.get<{ Querystring: AuditQuery }>('/audit', { schema: { hide: true, querystring: AuditQuery } }, async (request, reply) => {
    checkUnscoped(request);
    const filter = filterOf(request.query);
    const page = auditPage(await audit.list(filter), filter);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(layout({ title: 'Audit', nav: 'audit', principal: request.principal }, page).value);
  });
}
