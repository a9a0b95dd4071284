import { driftPolicyOf, isPrevented, withPrevention } from '@tidemark/drift';
import { groupOf, type KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * preventionCheck runs before the run's first write (a dry-run counts). When Git says the object
 * is prevented (its tidemark.dev/drift annotation, its kind's or its source's default), it marks
 * the run so render labels what it applies (ensurePrevention writes the policy before apply).
 * When a tenant's identity writes to a cluster that has the policy, that identity is trusted
 * first in the object's namespace (only there), so its own prevented objects stay writable by it. An object that was prevented and no
 * longer is asks the keeper whether the policy is still needed.
 */
export async function preventionCheck(run: ReconcileRun, deps: Pick<PipelineDependencies, 'driftPrevention' | 'driftPolicyFor' | 'options'>): Promise<void> {
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
export async function ensurePrevention(run: ReconcileRun, deps: Pick<PipelineDependencies, 'driftPrevention'>, objects: readonly KubernetesManifest[]): Promise<void> {
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
