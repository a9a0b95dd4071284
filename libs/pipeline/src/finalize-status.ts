import { NotReadyError, TerminalError, type ObjectStatus, type ReconcileFailure, type ReconcileRecord } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import { failureRecord, ownPrevious } from './record-failure';
import { wasReadyAt } from './observe-run';
import { orphanedRecord } from './record-orphan';
import { isDeleted, isSkipped, prunedBy, type ReconcileRun } from './run';

/**
 * finalizeStatus is the one write of a run to the status store, like Flux's finalizeStatus: the
 * record and its history entry, in one transaction, from how the run ended. `applied` is the
 * record the status stage built for a run that got through apply. A skipped run writes nothing;
 * an object gone from Git loses its record.
 */
export async function finalizeStatus(run: ReconcileRun, deps: PipelineDependencies, applied?: ObjectStatus): Promise<void> {
  if (isSkipped(run)) return;
  const { cluster, objectKey } = run.job;
  if (run.failure) {
    const record = failureRecord(run, run.failure, deps.now?.() ?? new Date());
    await deps.statusStore.record(cluster, objectKey, record, historyEntry(run, {
      result: failureResult(run.failure), stage: run.stage, message: run.failure.message,
    }));
    return;
  }
  if (!run.desired) {
    await finalizeRemoved(run, deps);
    return;
  }
  if (isDeleted(run)) {
    await deps.statusStore.record(cluster, objectKey, undefined, historyEntry(run, {
      result: 'pruned', stage: 'deletion', message: `Deleted in the cluster by hand; pruned ${prunedBy(run.deletion).deleted.length} objects and will recreate it from Git.`,
    }));
    return;
  }
  if (!applied || !run.outcome) return;
  const { health, applied: { changes }, pruned } = run.outcome;
  const count = (action: string) => changes.filter((entry) => entry.action === action).length;
  await deps.statusStore.record(cluster, objectKey, applied, historyEntry(run, {
    result: health.status === 'Ready' ? 'succeeded' : 'progressing',
    message: health.message,
    changes: { created: count('created'), configured: count('configured'), unchanged: count('unchanged'), deleted: pruned.length },
  }));
  // When the commit reached the cluster, for the dashboard's timelines (a resync at the same revision is not it).
  if (health.status === 'Ready' && !wasReadyAt(run)) await deps.statusStore.recordRevisionLive(run.job.source, run.job.revision, cluster, new Date());
}

function historyEntry(run: ReconcileRun, outcome: Pick<ReconcileRecord, 'result'> & Partial<ReconcileRecord>): ReconcileRecord {
  const traceId = run.span.traceId;
  return { revision: run.job.revision, startedAt: run.startedAt.toISOString(), durationMs: Date.now() - run.startedAt.getTime(), ...outcome, ...(traceId ? { traceId } : {}) };
}

/** finalizeRemoved forgets an object removed from Git, unless a prune guard orphaned it: then it stays listed, saying why. */
async function finalizeRemoved(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const { cluster, objectKey } = run.job;
  // Another source's record of the same key (it declares the object too) is not this run's to forget.
  if (run.previous && !ownPrevious(run)) return;
  if (run.deletion?.action !== 'orphaned') {
    await deps.statusStore.delete(cluster, objectKey);
    return;
  }
  const record = orphanedRecord(run, run.deletion.orphaned, deps.now?.() ?? new Date());
  await deps.statusStore.record(cluster, objectKey, record, historyEntry(run, { result: 'skipped', stage: 'deletion', message: record.conditions[0]?.message ?? '' }));
}

/** failureResult: a terminal failure stalls, a not-ready run waits (never counted failed), the rest failed. */
function failureResult(failure: ReconcileFailure): ReconcileRecord['result'] {
  if (failure instanceof TerminalError) return 'stalled';
  return failure instanceof NotReadyError ? 'waiting' : 'failed';
}
