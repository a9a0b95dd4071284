import { NotReadyError, findCondition, type ObjectStatus } from '@tidemark/contracts';
import { crdToken, objectToken } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * wakeDependents runs after a run's status is written: an object now Ready wakes what waits on it,
 * and so does one whose Ready condition changed (its dependents then say why they still wait); a
 * CRD also wakes what waits for its kind. A failed wake is logged; the waiters' own recheck is the
 * safety net.
 */
export async function wakeDependents(run: ReconcileRun, deps: PipelineDependencies, record: ObjectStatus | undefined): Promise<void> {
  if (!deps.ordering || !readyChanged(run, record)) return;
  const tokens = [objectToken(run.job.objectKey)];
  const spec = run.object?.kind === 'CustomResourceDefinition' ? (run.object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined) : undefined;
  if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') tokens.push(crdToken(spec.group, spec.names.kind));
  await deps.ordering.wake(run.job.cluster, tokens).catch((error: unknown) => {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not wake the objects waiting on this one');
  });
}

/** readyChanged: the run ended Ready, or with another Ready condition than the last run (a wait's message included). */
function readyChanged(run: ReconcileRun, record: ObjectStatus | undefined): boolean {
  const before = findCondition(run.previous?.conditions, 'Ready');
  if (run.failure) return run.failure instanceof NotReadyError && before?.message !== run.failure.message;
  const ready = findCondition(record?.conditions, 'Ready');
  if (!ready) return false;
  return ready.status === 'True' || ready.status !== before?.status || ready.reason !== before.reason || ready.message !== before.message;
}
