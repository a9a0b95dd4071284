import { ConditionType, findCondition, NotReadyError, type ReconcileOutcome } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import { isDeleted, isSkipped, type ReconcileRun } from '../run';

/**
 * resultStage decides when the object is looked at again, as controller-runtime's
 * Result{RequeueAfter}: a healthy object at the resync interval (the safety net behind watches),
 * one still progressing soon, one waiting for a dependency after the wait it names, a CR deleted
 * by hand while still in Git at once (to recreate it), a removed object never. Any other failure
 * is thrown for the queue: terminal stalls, the rest is retried with backoff.
 */
export function resultStage(run: ReconcileRun, deps: Pick<PipelineDependencies, 'options' | 'now'>): ReconcileOutcome {
  if (run.failure instanceof NotReadyError) return { kind: 'requeue', afterMs: run.failure.requeueAfterMs };
  if (run.failure) throw run.failure;
  run.stage = 'result';
  if (isSkipped(run)) return skipped(run);
  if (isDeleted(run)) return run.desired ? { kind: 'requeue', afterMs: 1_000 } : { kind: 'done' };
  if (!run.desired) return { kind: 'done' };
  if (run.outcome?.health.status !== 'Ready') return { kind: 'requeue', afterMs: progressingDelay(run, deps) };
  return { kind: 'requeue', afterMs: deps.options?.resyncIntervalMs ?? 300_000, resync: true };
}

/** skipped: a suspended object is done; a stalled one is done and says it is still stalled, so the queue's cache keeps it. */
function skipped(run: ReconcileRun): ReconcileOutcome {
  const stalled = findCondition(run.previous?.conditions, ConditionType.Stalled);
  if (run.previous?.suspended || stalled?.status !== 'True') return { kind: 'done' };
  return { kind: 'done', stalled: { code: stalled.reason, message: stalled.message } };
}

/**
 * progressingDelay looks again soon after a change, then less often the longer the objects
 * stay unready (a quarter of the time waited so far), never later than the resync interval.
 */
function progressingDelay(run: ReconcileRun, deps: Pick<PipelineDependencies, 'options' | 'now'>): number {
  const minimum = deps.options?.progressingRequeueMs ?? 5_000;
  const maximum = deps.options?.resyncIntervalMs ?? 300_000;
  const since = run.previous?.conditions.find((condition) => condition.type === 'Ready' && condition.status === 'False')?.lastTransitionTime;
  const waited = since ? (deps.now?.() ?? new Date()).getTime() - Date.parse(since) : 0;
  return Math.round(Math.min(maximum, Math.max(minimum, waited / 4)));
}
