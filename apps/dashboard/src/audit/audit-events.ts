import type { AuditEntry } from '@tidemark/status-store';

/** AuditEvent is the Kubernetes Event an audited action leaves on the object it touched. */
export interface AuditEvent {
  cluster: string;
  objectKey: string;
  reason: string;
  message: string;
}

// The actions on one Git object that change Tidemark's handling of it. object.restart and
// object.run-job are not here: they write their own Event as they change the cluster.
const reasons: Readonly<Record<string, { reason: string; done: string }>> = {
  'object.reconcile': { reason: 'ReconcileRequestedByOperator', done: 'Reconcile requested' },
  'object.suspend': { reason: 'SuspendedByOperator', done: 'Suspended' },
  'object.resume': { reason: 'ResumedByOperator', done: 'Resumed' },
  'queue.retry': { reason: 'RetryRequestedByOperator', done: 'Retry requested' },
};

const ways: Readonly<Record<string, string>> = {
  session: 'a dashboard session (UI)',
  bearer: 'a bearer token (API or CLI)',
};

/**
 * auditEventOf is the Event an audit entry announces, or undefined: only a done action (a denied
 * or failed one is in the trail alone) on one object. The message says what, who and which way;
 * never the parameters.
 */
export function auditEventOf(entry: AuditEntry): AuditEvent | undefined {
  const known = reasons[entry.action];
  if (!known || entry.result !== 'ok' || entry.target.type !== 'object' || !entry.target.cluster) return undefined;
  const way = ways[entry.actor.via ?? ''] ?? entry.actor.via ?? 'an unknown way';
  const role = entry.actor.role ? `, ${entry.actor.role}` : '';
  return {
    cluster: entry.target.cluster, objectKey: entry.target.name, reason: known.reason,
    message: `${known.done} by ${entry.actor.name}${role}, through ${way} of the Tidemark dashboard (request ${entry.requestId ?? 'unknown'})`,
  };
}
