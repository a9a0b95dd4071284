import { messageOf, NotReadyError, Reason, TransientError, type SyncWindowPass } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * windowCheck stops a run before its first write when a sync window holds the cluster for the
 * run's source, as freezeCheck does for a freeze: nothing is applied or pruned, no /status or
 * Event is written, and the job waits (not-ready, category waiting) until the window's end, or
 * `options.syncWindowRecheckMs` if sooner. A window that allows manual syncs lets one run through
 * for each pass an operator's reconcile left (takeWindowPass); the pass is taken, so it opens once.
 */
export async function windowCheck(run: Pick<ReconcileRun, 'job'>, deps: Pick<PipelineDependencies, 'syncWindowOf' | 'takeWindowPass' | 'options' | 'log'>): Promise<void> {
  const { cluster, source, objectKey } = run.job;
  const hold = deps.syncWindowOf?.(cluster, source);
  if (!hold) return;
  if (hold.manualSync && deps.takeWindowPass) {
    const pass: SyncWindowPass | undefined = await deps.takeWindowPass(cluster, objectKey).catch((error: unknown) => {
      throw new TransientError('SyncWindowUnknown', `Could not read whether an operator asked to sync ${objectKey} through the sync window (${messageOf(error)}); nothing is written until it can.`, { cause: error });
    });
    if (pass) {
      deps.log?.info({ cluster, source, objectKey, by: pass.by, askedAt: pass.at, window: hold.description }, 'an operator\'s sync passes the sync window');
      return;
    }
  }
  const most = deps.options?.syncWindowRecheckMs ?? 300_000;
  const recheckMs = Math.min(most, Math.max(1_000, hold.opensInMs ?? most));
  const manual = hold.manualSync ? ' An operator\'s reconcile passes it (manualSync).' : '';
  throw new NotReadyError(Reason.SyncWindowClosed, `Sync window: ${hold.description}. Nothing from source ${source} is applied or pruned on cluster ${cluster} until it opens; drift is not healed.${manual}`, recheckMs, { category: 'waiting' });
}

/** isWindowFailure: a run a sync window stopped (or could not decide about) writes nothing to the cluster, not even its failure. */
export function isWindowFailure(failure: { code: string }): boolean {
  return failure.code === Reason.SyncWindowClosed || failure.code === 'SyncWindowUnknown';
}
