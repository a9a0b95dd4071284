import { Reason, verdictOf, type ObjectStatus } from '@tidemark/contracts';
import type { GateFinding, GateReport } from './rollout-engine';

/**
 * readGate judges a batch's health gate from the status records: every object the source places
 * on the batch's clusters (`expected`, by cluster) must have a record that applied `revision` and
 * is Ready (verdictOf, the one verdict). A Stalled object at the revision, or one whose health
 * timeout ran out there (HealthCheckFailed), fails the gate at once;
 * anything else not Ready yet is pending, named with the reason its record gives.
 */
export function readGate(batch: readonly string[], revision: string, expected: ReadonlyMap<string, readonly string[]>, statuses: ReadonlyMap<string, ObjectStatus | undefined>): GateReport {
  let pending: GateFinding | undefined;
  for (const cluster of batch) {
    for (const objectKey of expected.get(cluster) ?? []) {
      const finding = judge(cluster, objectKey, revision, statuses.get(`${cluster}\n${objectKey}`));
      if (!finding) continue;
      if (finding.failed) return { clusters: batch, ready: false, failed: finding.finding };
      pending ??= finding.finding;
    }
  }
  return { clusters: batch, ready: pending === undefined, ...(pending ? { pending } : {}) };
}

/** statusKey is how readGate's `statuses` map is keyed. */
export function statusKey(cluster: string, objectKey: string): string {
  return `${cluster}\n${objectKey}`;
}

function judge(cluster: string, objectKey: string, revision: string, status: ObjectStatus | undefined): { failed: boolean; finding: GateFinding } | undefined {
  const found = (reason: string, failed = false) => ({ failed, finding: { cluster, objectKey, reason } });
  if (!status) return found('not applied yet');
  const verdict = verdictOf(status);
  const atRevision = status.lastAppliedRevision === revision;
  if (atRevision && verdict.state === 'Ready') return undefined;
  const triedRevision = status.lastAttemptedRevision === revision || atRevision;
  if (triedRevision && verdict.state === 'Stalled') return found(`Stalled: ${verdict.message || verdict.reason}`, true);
  // Its own health timeout ran out at this revision: the object said it will not become Ready.
  if (atRevision && verdict.state === 'Failed' && verdict.reason === Reason.HealthCheckFailed) return found(`${Reason.HealthCheckFailed}: ${verdict.message}`, true);
  if (!triedRevision) return found(`still at ${(status.lastAppliedRevision ?? 'no revision').slice(0, 12)}`);
  return found(`${verdict.state}${verdict.reason ? ` (${verdict.reason})` : ''}${verdict.message ? `: ${verdict.message}` : ''}`);
}
