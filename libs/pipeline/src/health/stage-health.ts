import type { ChangeSetEntry } from '@tidemark/cluster';
import { builtinHealthRules, healthOf, withSourceHealthRules, type Health, type HealthRule, type RunHealthRules } from '@tidemark/kinds';
import type { ReconcileRun } from '../run';
import type { AppliedObjects, KindOutcome } from '../apply/stage-results';
import type { PipelineDependencies } from '../dependencies';

/**
 * healthStage is the first owned object that is not ready (for a plain manifest, the object
 * itself), else the first failing condition of the kind, else Ready with what the run did. The
 * rules are the user's CEL rules before the built-in ones.
 */
export function healthStage(run: ReconcileRun, deps: HealthRulesDependencies, applied: AppliedObjects, pruned: readonly ChangeSetEntry[], kind: KindOutcome): Health {
  run.stage = 'health';
  const objects = run.plugin ? applied.changes.map((entry) => entry.object) : applied.live ? [applied.live] : [];
  const rules = healthRulesOf(run, deps);
  for (const object of objects) {
    const health = healthOf(object, rules);
    if (health.status !== 'Ready') return withNote(health, run.healthRules?.noteFor(object));
  }
  const failing = kind.kindConditions.find((condition) => condition.status === 'False' && condition.type !== 'Ready');
  if (failing) return { status: 'Progressing', message: failing.message };
  // A HealthRule refused or overruled is said even when the object is Ready, so its author learns it.
  const note = objects.map((object) => run.healthRules?.noteFor(object)).find((found) => found !== undefined);
  return withNote({ status: 'Ready', message: summary(run, applied.changes, pruned) }, note);
}

function withNote(health: Health, note: string | undefined): Health {
  return note ? { ...health, message: `${health.message} ${note}` } : health;
}

function summary(run: ReconcileRun, changes: readonly ChangeSetEntry[], pruned: readonly ChangeSetEntry[]): string {
  const count = (action: string) => changes.filter((entry) => entry.action === action).length;
  return `Applied revision ${run.job.revision.slice(0, 12)}: ${count('created')} created, ${count('configured')} configured, ${count('unchanged')} unchanged, ${pruned.length} pruned.`;
}

/**
 * readHealthRules gives the rules the run's objects are judged by: the reconciler's (config, then
 * built-in), with the HealthRule objects of the run's own source at its revision in between.
 * Another source's HealthRules are never read here, so one tenant cannot judge another's objects.
 */
/** HealthRulesDependencies is what reading health rules needs: the configured rules and each source's HealthRule objects. */
export type HealthRulesDependencies = Pick<PipelineDependencies, 'desired' | 'healthRules'>;

export async function readHealthRules(run: ReconcileRun, deps: HealthRulesDependencies): Promise<RunHealthRules> {
  const fromGit = await deps.desired.healthRulesAt?.(run.job.source, run.job.revision);
  return withSourceHealthRules(deps.healthRules ?? builtinHealthRules, fromGit);
}

/** healthRulesOf is the run's rules once read, else the reconciler's. */
export function healthRulesOf(run: ReconcileRun, deps: HealthRulesDependencies): readonly HealthRule[] | undefined {
  return run.healthRules?.rules ?? deps.healthRules;
}
