import { describeFreeze, messageOf, NotReadyError, Reason, TransientError, groupOf, type SyncWindowPass, type KubernetesManifest } from '@tidemark/contracts';
import { driftPolicyOf, isPrevented, withPrevention } from '@tidemark/drift';
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

/**
 * preventionCheck runs before the run's first write (a dry-run counts). When Git says the object
 * is prevented (its tidemark.dev/drift annotation, its kind's or its source's default), it marks
 * the run so render labels what it applies (ensurePrevention writes the policy before apply).
 * When a tenant's identity writes to a cluster that has the policy, that identity is trusted
 * first in the object's namespace (only there), so its own prevented objects stay writable by it. An object that was prevented and no
 * longer is asks the keeper whether the policy is still needed.
 */
export async function preventionCheck(run: Pick<ReconcileRun, 'job' | 'connection' | 'desired' | 'object' | 'live' | 'prevention'>, deps: Pick<PipelineDependencies, 'driftPrevention' | 'driftPolicyFor' | 'options'>): Promise<void> {
  const { cluster, source } = run.job;
  const prevented = run.object !== undefined && run.desired !== undefined
    && driftPolicyOf(run.object, deps.options?.driftPolicies, deps.driftPolicyFor?.(source)) === 'prevent';
  if (prevented) run.prevention = { gitFile: `${source}: ${run.desired!.path}` };
  const keeper = deps.driftPrevention;
  if (!keeper) return;
  const identity = run.connection.identity;
  const namespace = run.object?.metadata.namespace ?? run.live?.metadata.namespace ?? '';
  if (identity) await keeper.trustIfActive(cluster, identity, namespace);
  if (!prevented && isPrevented(run.live)) keeper.mayRelease(cluster);
}

/**
 * ensurePrevention, just before apply, makes the cluster's admission policy exist, trust the
 * identity the run writes as in the namespaces of the prevented objects, and know the kinds of the prevented objects it is about to apply
 * (so that removing it later searches only those kinds).
 */
export async function ensurePrevention(run: Pick<ReconcileRun, 'job' | 'connection'>, deps: Pick<PipelineDependencies, 'driftPrevention'>, objects: readonly KubernetesManifest[]): Promise<void> {
  const guarded = objects.filter(isPrevented);
  const kinds = [...new Set(guarded.map((object) => `${groupOf(object.apiVersion)}/${object.kind}`))];
  if (!deps.driftPrevention || kinds.length === 0) return;
  const namespaces = [...new Set(guarded.map((object) => object.metadata.namespace ?? ''))];
  await deps.driftPrevention.ensure(run.job.cluster, { identity: run.connection.identity, namespaces, kinds });
}

/**
 * prevented labels an object the run applies when the run is prevented; an object the kind
 * renders follows the CR unless its own annotation says otherwise.
 */
export function prevented(run: Pick<ReconcileRun, 'prevention'>, object: KubernetesManifest, deps?: Pick<PipelineDependencies, 'options'>): KubernetesManifest {
  if (!run.prevention) return object;
  if (driftPolicyOf(object, deps?.options?.driftPolicies, 'prevent') !== 'prevent') return object;
  return withPrevention(object, run.prevention.gitFile);
}
