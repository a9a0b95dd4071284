import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '@tidemark/status-store';
import { auditEventOf } from './audit-events';

const entry = (overrides: Partial<AuditEntry>): AuditEntry => ({
  actor: { name: 'otto', role: 'operator', via: 'bearer' }, action: 'object.suspend',
  target: { type: 'object', cluster: 'prod', name: 'apps/Deployment/shop/web' },
  parameters: { token: '[redacted]', note: 'hunter2' }, result: 'ok', status: 200, requestId: 'req-7', client: '10.0.0.1',
  ...overrides,
});

describe('auditEventOf', () => {
  it('announces a done object action with who, which way and the request, never the parameters', () => {
    const event = auditEventOf(entry({}));
    expect(event).toEqual({
      cluster: 'prod', objectKey: 'apps/Deployment/shop/web', reason: 'SuspendedByOperator',
      message: 'Suspended by otto, operator, through a bearer token (API or CLI) of the Tidemark dashboard (request req-7)',
    });
    expect(event?.message).not.toContain('hunter2');
    expect(auditEventOf(entry({ action: 'object.resume', actor: { name: 'alice@example.com', role: 'admin', via: 'session' } }))?.message)
      .toBe('Resumed by alice@example.com, admin, through a dashboard session (UI) of the Tidemark dashboard (request req-7)');
    expect(auditEventOf(entry({ action: 'object.reconcile' }))?.reason).toBe('ReconcileRequestedByOperator');
    expect(auditEventOf(entry({ action: 'queue.retry' }))?.reason).toBe('RetryRequestedByOperator');
  });

  it('announces nothing for a denied or failed action, one without an object, or one that writes its own Event', () => {
    expect(auditEventOf(entry({ result: 'denied', status: 403 }))).toBeUndefined();
    expect(auditEventOf(entry({ result: 'error', status: 503 }))).toBeUndefined();
    expect(auditEventOf(entry({ action: 'queue.retry', target: { type: 'cluster', name: 'prod' } }))).toBeUndefined();
    expect(auditEventOf(entry({ action: 'prune.confirm', target: { type: 'prune-hold', cluster: 'prod', name: 'shop' } }))).toBeUndefined();
    expect(auditEventOf(entry({ action: 'object.restart' }))).toBeUndefined();
    expect(auditEventOf(entry({ target: { type: 'object', name: 'apps/Deployment/shop/web' } }))).toBeUndefined();
  });
});
