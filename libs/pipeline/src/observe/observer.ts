import type { ObjectStatus } from '@tidemark/contracts';

/** ReconcileResult is how one run ended, as metrics label it; 'unchanged': Ready as the last full run left it, the stages not run. */
export type ReconcileResult = 'ready' | 'unchanged' | 'progressing' | 'deleted' | 'skipped' | 'terminal' | 'transient' | 'not-ready';

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
  /** The status record the run wrote (its verdict is verdictOf(record)); none when it wrote none or removed it. Read it here, not back from Redis. */
  record?: ObjectStatus;
}

/**
 * PipelineObserver receives one observation per run. The app turns them into metrics; the
 * pipeline stays free of a metrics library and of global state. It must not throw.
 */
export interface PipelineObserver {
  reconciled(observation: ReconcileObservation): void;
}
