import type { FastifyRequest } from 'fastify';
import type { AuditActor, AuditLog } from '@tidemark/status-store';

/** SignInEvent is one sign-in, sign-out or refused sign-in, for the audit trail. */
export interface SignInEvent {
  actor: AuditActor;
  /** How: an access token, or single sign-on through the OpenID provider. */
  method: 'token' | 'oidc';
  /** The HTTP status answered: a redirect when it worked, 4xx when refused. */
  status: number;
  /** Why it was refused, in words (never a token). */
  reason?: string;
  /** @defaultValue 'session.sign-in' */
  action?: 'session.sign-in' | 'session.sign-out';
}

/**
 * recordSignIn writes a sign-in event to the audit trail and the log, as actions are. A failed
 * write is logged, not turned into a failed sign-in.
 */
export async function recordSignIn(audit: AuditLog, request: FastifyRequest, event: SignInEvent): Promise<void> {
  const entry = {
    actor: event.actor, action: event.action ?? 'session.sign-in', target: { type: 'other' as const, name: 'dashboard' },
    parameters: { method: event.method, ...(event.reason ? { reason: event.reason } : {}) },
    result: event.status < 400 ? 'ok' as const : event.status >= 500 ? 'error' as const : 'denied' as const, status: event.status,
    requestId: String(request.id), client: request.ip,
  };
  try {
    const record = await audit.append(entry);
    request.log.info({ audit: record }, `audit: ${record.actor.name} ${record.action}: ${record.result}`);
  } catch (error) {
    request.log.error({ err: error, audit: entry }, 'audit: the record could not be written');
  }
}
