import { describeFreeze, messageOf, NotReadyError, Reason, TransientError } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * freezeCheck stops a run before its first write to the cluster when an operator froze the
 * cluster: nothing is applied, pruned or deleted there, and neither the object's /status nor an
 * Event is written (failureReport skips a ClusterFrozen). The run ends not-ready, so the job
 * waits and looks again after `options.frozenRecheckMs`; lifting the freeze wakes the cluster's
 * objects at once. A freeze that cannot be read is a transient failure: no write while unsure.
 */
export async function freezeCheck(run: Pick<ReconcileRun, 'job'>, deps: Pick<PipelineDependencies, 'freezeOf' | 'options'>): Promise<void> {
  if (!deps.freezeOf) return;
  const { cluster } = run.job;
  const freeze = await deps.freezeOf(cluster).catch((error: unknown) => {
    throw new TransientError('FreezeUnknown', `Could not read whether cluster ${cluster} is frozen (${messageOf(error)}); nothing is written until it can.`, { cause: error });
  });
  if (!freeze) return;
  throw new NotReadyError(Reason.ClusterFrozen, `Cluster ${cluster} is ${describeFreeze(freeze)}. Nothing is applied or pruned there until an operator unfreezes it; drift is not healed.`, deps.options?.frozenRecheckMs ?? 60_000, { category: 'waiting' });
}

/** isFreezeFailure: a run stopped by a freeze (or by not knowing one) writes nothing to the cluster, not even its failure. */
export function isFreezeFailure(failure: { code: string }): boolean {
  return failure.code === Reason.ClusterFrozen || failure.code === 'FreezeUnknown';
}
