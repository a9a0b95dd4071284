import { ConditionType, Reason, setCondition, type ObjectStatus } from '@tidemark/contracts';
import type { KeptObject } from '../prune/guards';
import type { ReconcileRun } from '../run';

/**
 * orphanedRecord is the status record of an object removed from Git that a prune guard kept:
 * it stays listed, with Ready=Unknown and the reason, until it is deleted by hand (the next run
 * then finds nothing and forgets it) or declared in Git again.
 */
export function orphanedRecord(run: ReconcileRun, kept: KeptObject, now: Date): ObjectStatus {
  const previous = run.previous;
  const generation = run.live?.metadata.generation ?? previous?.observedGeneration ?? 0;
  const message = `Removed from Git at revision ${run.job.revision.slice(0, 12)}, but orphaned (left in the cluster, no longer managed): ${kept.reason}`;
  let conditions = setCondition(previous?.conditions ?? [], { type: ConditionType.Ready, status: 'Unknown', observedGeneration: generation, reason: Reason.Orphaned, message }, now);
  conditions = setCondition(conditions, { type: ConditionType.Reconciling, status: 'False', observedGeneration: generation, reason: Reason.Orphaned, message: 'Tidemark no longer reconciles it.' }, now);
  conditions = setCondition(conditions, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: Reason.Orphaned, message: 'Not stalled.' }, now);
  return {
    ...(previous ?? { inventory: [] }),
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    apiVersion: run.live?.apiVersion ?? previous?.apiVersion ?? kept.entry.apiVersion,
    kind: run.ref.kind,
    namespace: kept.entry.namespace,
    name: run.ref.name,
    lastAttemptedRevision: run.job.revision,
    conditions: [conditions.find((condition) => condition.type === ConditionType.Ready)!, ...conditions.filter((condition) => condition.type !== ConditionType.Ready)],
    warnings: [message],
    updatedAt: now.toISOString(),
  };
}
