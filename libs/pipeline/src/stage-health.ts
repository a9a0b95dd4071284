import type { ChangeSetEntry } from '@tidemark/cluster';
import { healthOf, type Health } from '@tidemark/kinds';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import type { AppliedObjects, KindOutcome } from './stage-results';

/**
 * healthStage is the first owned object that is not ready (for a plain manifest, the object
 * itself), else the first failing condition of the kind, else Ready with what the run did. The
 * rules are the user's CEL rules before the built-in ones.
 */
export function healthStage(run: ReconcileRun, deps: PipelineDependencies, applied: AppliedObjects, pruned: readonly ChangeSetEntry[], kind: KindOutcome): Health {
  run.stage = 'health';
  const objects = run.plugin ? applied.changes.map((entry) => entry.object) : applied.live ? [applied.live] : [];
  for (const object of objects) {
    const health = healthOf(object, deps.healthRules);
    if (health.status !== 'Ready') return health;
  }
  const failing = kind.kindConditions.find((condition) => condition.status === 'False' && condition.type !== 'Ready');
  if (failing) return { status: 'Progressing', message: failing.message };
  return { status: 'Ready', message: summary(run, applied.changes, pruned) };
}

function summary(run: ReconcileRun, changes: readonly ChangeSetEntry[], pruned: readonly ChangeSetEntry[]): string {
  const count = (action: string) => changes.filter((entry) => entry.action === action).length;
  return `Applied revision ${run.job.revision.slice(0, 12)}: ${count('created')} created, ${count('configured')} configured, ${count('unchanged')} unchanged, ${pruned.length} pruned.`;
}
