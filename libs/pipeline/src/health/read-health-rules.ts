import { builtinHealthRules, withSourceHealthRules, type HealthRule, type RunHealthRules } from '@tidemark/kinds';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

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
