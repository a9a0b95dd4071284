import { NotReadyError, TerminalError, findCondition, type ReconcileFailure } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

/** ReconcileResult is how one run ended, as metrics label it. */
export type ReconcileResult = 'ready' | 'progressing' | 'deleted' | 'skipped' | 'terminal' | 'transient' | 'not-ready';

/** ReconcileObservation is what the pipeline tells its observer about one finished run. */
export interface ReconcileObservation {
  cluster: string;
  source: string;
  objectKey: string;
  revision: string;
  /** The object's kind, from its key. */
  kind: string;
  result: ReconcileResult;
  /** The stage the run ended in (where a failure happened). */
  stage: string;
  durationMs: number;
  /** True on the first run that finds the object Ready at this revision: the commit is live here. */
  becameReady: boolean;
  /** Drift items this run left in place (report policy), or undefined when it did not get to check. */
  driftReported?: number;
  /** Drift items this run healed by re-applying. */
  driftHealed: number;
}

/**
 * PipelineObserver receives one observation per run. The app turns them into metrics; the
 * pipeline stays free of a metrics library and of global state. It must not throw.
 */
export interface PipelineObserver {
  reconciled(observation: ReconcileObservation): void;
}

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
    ...(failure || run.skipped ? {} : { driftReported: run.deleted ? 0 : run.drift.reported.length }),
    driftHealed: run.drift.healed.length,
  });
}

function failureResult(failure: ReconcileFailure): ReconcileResult {
  if (failure instanceof TerminalError) return 'terminal';
  if (failure instanceof NotReadyError) return 'not-ready';
  return 'transient';
}

function successResult(run: ReconcileRun): ReconcileResult {
  if (run.skipped) return 'skipped';
  if (run.deleted || !run.desired) return 'deleted';
  return run.health.status === 'Ready' ? 'ready' : 'progressing';
}

// The previous record says Ready at this very revision: this run is a resync, not the commit going live.
function wasReadyAt(run: ReconcileRun): boolean {
  const previous = run.previous;
  if (!previous || previous.lastAppliedRevision !== run.job.revision) return false;
  return findCondition(previous.conditions, 'Ready')?.status === 'True';
}
