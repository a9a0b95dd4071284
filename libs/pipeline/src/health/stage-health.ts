import type { ChangeSetEntry } from '@tidemark/cluster';
import { builtinHealthRules, healthOf, withSourceHealthRules, type Health, type HealthRule, type RunHealthRules } from '@tidemark/kinds';
import { formatDuration, healthTimeoutAnnotation, parseHealthTimeout } from '@tidemark/ordering';
import type { ReconcileRun } from '../run';
import type { AppliedObjects, KindOutcome } from '../apply/apply-results';
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

/** The health timeout when neither the object nor the config sets one: Flux's default Kustomization timeout, ten minutes. */
const defaultHealthTimeoutMs = 600_000;

/**
 * healthTimeoutOf is how long the run's object may take to become Ready: its
 * tidemark.dev/health-timeout annotation, else its source's healthTimeoutMs, else the configured
 * default. The order stage refuses an unreadable annotation first (readHealthTimeout), so here it
 * can only be absent or good.
 */
/** HealthTimeoutDependencies is what the health timeout reads: the per-kind timeouts and the default. */
export type HealthTimeoutDependencies = Pick<PipelineDependencies, 'healthTimeoutFor' | 'options'>;

/** HealthTimeoutRun is the part of the run the health timeout reads: the object's annotation and the last record's clock. */
export type HealthTimeoutRun = Pick<ReconcileRun, 'job' | 'desired' | 'previous' | 'specHash'>;

export function healthTimeoutOf(run: HealthTimeoutRun, deps: HealthTimeoutDependencies): number {
  const fallback = deps.healthTimeoutFor?.(run.job.source) ?? deps.options?.healthTimeoutMs ?? defaultHealthTimeoutMs;
  try {
    return readHealthTimeout(run) ?? fallback;
  } catch {
    return fallback;
  }
}

/** readHealthTimeout parses the object's annotation; throws an Error saying the form. */
export function readHealthTimeout(run: Pick<ReconcileRun, 'desired'>): number | undefined {
  try {
    return parseHealthTimeout(run.desired?.object.metadata.annotations?.[healthTimeoutAnnotation]);
  } catch (error) {
    throw new Error(`${healthTimeoutAnnotation}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * unreadySince is when the object stopped being Ready at its current spec: kept from the last run
 * while the spec is the same and it was not Ready then, else now. A new revision that changes the
 * object starts its clock again.
 */
export function unreadySince(run: Pick<ReconcileRun, 'previous' | 'specHash'>, now: Date): string {
  const previous = run.previous;
  if (previous?.unreadySince && previous.specHash === run.specHash) return previous.unreadySince;
  return now.toISOString();
}

/** HealthWait is how long the object has not been Ready, against its timeout. */
export interface HealthWait {
  waitedMs: number;
  timeoutMs: number;
  timedOut: boolean;
  /** "2m5s, past its health timeout of 2m0s", for messages. */
  said: string;
}

/** healthWait measures the run's wait for Ready against its health timeout. */
export function healthWait(run: HealthTimeoutRun, deps: HealthTimeoutDependencies, now: Date): HealthWait {
  const waitedMs = Math.max(0, now.getTime() - Date.parse(unreadySince(run, now)));
  const timeoutMs = healthTimeoutOf(run, deps);
  const timedOut = waitedMs >= timeoutMs;
  return { waitedMs, timeoutMs, timedOut, said: `${formatDuration(waitedMs)}, ${timedOut ? 'past' : 'within'} its health timeout of ${formatDuration(timeoutMs)}` };
}
