import { crdToken, objectToken } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * wakeDependents runs after a run's status is written: an object now Ready (or failed its health
 * check, so its dependents say why they still wait) wakes what waits on it, and a CRD also wakes
 * what waits for its kind. A failed wake is logged; the waiters' own recheck is the safety net.
 */
export async function wakeDependents(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const health = run.outcome?.health.status;
  if (!deps.ordering || run.failure || (health !== 'Ready' && health !== 'Failed')) return;
  const tokens = [objectToken(run.job.objectKey)];
  const spec = run.object?.kind === 'CustomResourceDefinition' ? (run.object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined) : undefined;
  if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') tokens.push(crdToken(spec.group, spec.names.kind));
  await deps.ordering.wake(run.job.cluster, tokens).catch((error: unknown) => {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not wake the objects waiting on this one');
  });
}
