import { NotReadyError, findCondition, type ObjectStatus } from '@tidemark/contracts';
import { crdToken, objectToken } from '@tidemark/ordering';
import type { ReconcileRun } from '../run';

/**
 * dependentTokens says whom finalize wakes after a run's status is written: an object now Ready
 * wakes what waits on it, and so does one whose Ready condition changed (its dependents then say
 * why they still wait); a CRD also wakes what waits for its kind. Empty when nobody is to be woken.
 */
export function dependentTokens(run: ReconcileRun, record: ObjectStatus | undefined): string[] {
  if (!readyChanged(run, record)) return [];
  const tokens = [objectToken(run.job.objectKey)];
  const spec = run.object?.kind === 'CustomResourceDefinition' ? (run.object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined) : undefined;
  if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') tokens.push(crdToken(spec.group, spec.names.kind));
  return tokens;
}

/** readyChanged: the run ended Ready, or with another Ready condition than the last run (a wait's message included). */
function readyChanged(run: ReconcileRun, record: ObjectStatus | undefined): boolean {
  const before = findCondition(run.previous?.conditions, 'Ready');
  if (run.failure) return run.failure instanceof NotReadyError && before?.message !== run.failure.message;
  const ready = findCondition(record?.conditions, 'Ready');
  if (!ready) return false;
  return ready.status === 'True' || ready.status !== before?.status || ready.reason !== before.reason || ready.message !== before.message;
}
