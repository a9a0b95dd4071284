import { NotReadyError, TerminalError, findCondition, type ReconcileFailure } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import { isDeleted, isSkipped, type ReconcileRun } from '../run';
import type { ReconcileResult } from './observer';

/** observeRun tells the observer, if any, how a run ended. */
export function observeRun(run: ReconcileRun, deps: PipelineDependencies, failure?: ReconcileFailure): void {
  if (!deps.observer) return;
  const result = failure ? failureResult(failure) : successResult(run);
  deps.observer.reconciled({
    cluster: run.job.cluster,
    source: run.job.source,
    objectKey: run.job.objectKey,
    revision: run.job.revision,
    kind: run.ref.kind,
    result,
    stage: run.stage,
    durationMs: Date.now() - run.startedAt.getTime(),
    becameReady: result === 'ready' && !wasReadyAt(run),
    ...(failure || isSkipped(run) ? {} : { driftReported: run.outcome?.applied.drift.reported.length ?? 0 }),
    driftHealed: run.outcome?.applied.drift.healed.length ?? 0,
  });
}

function failureResult(failure: ReconcileFailure): ReconcileResult {
  if (failure instanceof TerminalError) return 'terminal';
  if (failure instanceof NotReadyError) return 'not-ready';
  return 'transient';
}

function successResult(run: ReconcileRun): ReconcileResult {
  if (isSkipped(run)) return 'skipped';
  if (isDeleted(run) || !run.desired) return 'deleted';
  return run.outcome?.health.status === 'Ready' ? 'ready' : 'progressing';
}

/** wasReadyAt: the previous record says Ready at this very revision, so this run is a resync, not the commit going live. */
export function wasReadyAt(run: ReconcileRun): boolean {
  const previous = run.previous;
  if (!previous || previous.lastAppliedRevision !== run.job.revision) return false;
  return findCondition(previous.conditions, 'Ready')?.status === 'True';
}
