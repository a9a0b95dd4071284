import type { ApiResource } from '@tidemark/cluster';
import { NotReadyError, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { refusalOf, type AllowList } from './allow-list';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * checkAllowed refuses, before any request about it, an object its source's allow-list does not
 * cover: Stalled with reason NotAllowed and the rule. Nothing is read, applied or pruned for it.
 * `resource` is undefined while the API server does not serve the kind: its scope is unknown then,
 * so it waits rather than guess.
 */
export function checkAllowed(run: ReconcileRun, deps: Pick<PipelineDependencies, 'tenancyFor'>, resource: ApiResource | undefined, namespace: string, apiVersion: string): void {
  const allow = deps.tenancyFor?.(run.job.source)?.allow;
  if (!allow) return;
  if (!resource) {
    throw new NotReadyError('KindNotServed', `${apiVersion} ${run.ref.kind} is not served on cluster ${run.job.cluster} yet, so whether source ${run.job.source} may apply it cannot be checked; waiting for its CRD.`, 5_000);
  }
  refuse(run, allow, { apiVersion, kind: run.ref.kind, namespace: resource.namespaced ? namespace : undefined, name: run.ref.name });
}

/** checkRenderedAllowed holds the objects a kind renders (a WebApp's Deployment, Service, …) to the same allow-list. */
export async function checkRenderedAllowed(run: ReconcileRun, deps: Pick<PipelineDependencies, 'tenancyFor'>, rendered: readonly KubernetesManifest[]): Promise<void> {
  const allow = deps.tenancyFor?.(run.job.source)?.allow;
  if (!allow) return;
  for (const object of rendered) {
    const resource = await run.connection.discovery.resourceFor(object.apiVersion, object.kind);
    refuse(run, allow, { apiVersion: object.apiVersion, kind: object.kind, namespace: resource.namespaced ? object.metadata.namespace ?? '' : undefined, name: object.metadata.name });
  }
}

function refuse(run: ReconcileRun, allow: AllowList, target: { apiVersion: string; kind: string; namespace: string | undefined; name: string }): void {
  const refusal = refusalOf(allow, { ...target, cluster: run.job.cluster });
  if (!refusal) return;
  const place = target.namespace ? `${target.namespace}/${target.name}` : target.name;
  throw new TerminalError('NotAllowed', `Source ${run.job.source} may not apply ${target.kind} ${place} to cluster ${run.job.cluster}: ${refusal}. Nothing was sent to the cluster for it; change the object in Git or the source's allow-list.`);
}
