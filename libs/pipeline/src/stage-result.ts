import type { ReconcileOutcome } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

/**
 * resultStage decides when the object is looked at again: a healthy object at the resync
 * interval (the safety net behind watches), one still progressing soon, a CR deleted by hand
 * while still in Git at once (to recreate it), a removed object never.
 */
export function resultStage(run: ReconcileRun, deps: PipelineDependencies): ReconcileOutcome {
  run.stage = 'result';
  if (run.skipped) return { kind: 'done' };
  if (run.deleted) return run.desired ? { kind: 'requeue', afterMs: 1_000 } : { kind: 'done' };
  if (!run.desired) return { kind: 'done' };
  if (run.health.status !== 'Ready') return { kind: 'requeue', afterMs: deps.options?.progressingRequeueMs ?? 5_000 };
  return { kind: 'requeue', afterMs: deps.options?.resyncIntervalMs ?? 300_000 };
}
