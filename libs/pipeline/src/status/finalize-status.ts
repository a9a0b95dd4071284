import { NotReadyError, TerminalError, type ObjectStatus, type ReconcileFailure, type ReconcileRecord } from '@tidemark/contracts';
import { failureRecord, ownPrevious } from './record-failure';
import { wasReadyAt } from '../observe/observe-run';
import { orphanedRecord } from '../deletion/stage-deletion';
import { isDeleted, isSkipped, prunedBy, type ReconcileRun } from '../run';

/**
 * RecordWrite is a run's one write to the status store: the record and its history entry, in one
 * transaction (`record` undefined: the record goes, the history stays); forgetting the object; or
 * nothing. `revisionLive` says the run's commit reached the cluster (for the dashboard's timelines).
 */
export type RecordWrite =
  | { action: 'record'; record: ObjectStatus | undefined; history: ReconcileRecord; revisionLive?: boolean }
  | { action: 'forget' }
  | { action: 'none' };

/**
 * finalizeStatus says what the run writes to the status store, like Flux's finalizeStatus, from
 * how the run ended. `applied` is the record the status stage built for a run that got through
 * apply. A skipped run writes nothing; an object gone from Git loses its record.
 */
export function finalizeStatus(run: ReconcileRun, now: Date, applied?: ObjectStatus): RecordWrite {
  if (isSkipped(run)) return { action: 'none' };
  if (run.failure) {
    const record = failureRecord(run, run.failure, now);
    return { action: 'record', record, history: historyEntry(run, { result: failureResult(run.failure), stage: run.stage, message: run.failure.message }) };
  }
  if (!run.desired) return removedRecord(run, now);
  if (isDeleted(run)) {
    return { action: 'record', record: undefined, history: historyEntry(run, {
      result: 'pruned', stage: 'deletion', message: `Deleted in the cluster by hand; pruned ${prunedBy(run.deletion).deleted.length} objects and will recreate it from Git.`,
    }) };
  }
  if (!applied || !run.outcome) return { action: 'none' };
  const { health, applied: { changes }, pruned } = run.outcome;
  const count = (action: string) => changes.filter((entry) => entry.action === action).length;
  return {
    action: 'record',
    record: applied,
    history: historyEntry(run, {
      result: health.status === 'Ready' ? 'succeeded' : 'progressing',
      message: health.message,
      changes: { created: count('created'), configured: count('configured'), unchanged: count('unchanged'), deleted: pruned.length },
    }),
    // When the commit reached the cluster (a resync at the same revision is not it).
    revisionLive: health.status === 'Ready' && !wasReadyAt(run),
  };
}

function historyEntry(run: ReconcileRun, outcome: Pick<ReconcileRecord, 'result'> & Partial<ReconcileRecord>): ReconcileRecord {
  const traceId = run.span.traceId;
  return { revision: run.job.revision, startedAt: run.startedAt.toISOString(), durationMs: Date.now() - run.startedAt.getTime(), ...outcome, ...(traceId ? { traceId } : {}) };
}

/** removedRecord forgets an object removed from Git, unless a prune guard orphaned it: then it stays listed, saying why. */
function removedRecord(run: ReconcileRun, now: Date): RecordWrite {
  // Another source's record of the same key (it declares the object too) is not this run's to forget.
  if (run.previous && !ownPrevious(run)) return { action: 'none' };
  if (run.deletion?.action !== 'orphaned') return { action: 'forget' };
  const record = orphanedRecord(run, run.deletion.orphaned, now);
  return { action: 'record', record, history: historyEntry(run, { result: 'skipped', stage: 'deletion', message: record.conditions[0]?.message ?? '' }) };
}

/** failureResult: a terminal failure stalls, a not-ready run waits (never counted failed), the rest failed. */
function failureResult(failure: ReconcileFailure): ReconcileRecord['result'] {
  if (failure instanceof TerminalError) return 'stalled';
  return failure instanceof NotReadyError ? 'waiting' : 'failed';
}
