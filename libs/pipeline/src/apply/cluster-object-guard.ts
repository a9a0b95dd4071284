import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/** The group of Tidemark's Cluster kind (libs/cluster-objects' clusterGroup; the pipeline may not import that library). */
const clusterGroup = 'tidemark.dev';
const clusterKind = 'Cluster';

/**
 * checkClusterObjects refuses, before anything is sent, a tidemark.dev Cluster that a tenant's
 * source would apply and that would hand the hub's power to that tenant: one that says inCluster
 * (the reconciler's own ServiceAccount), or one whose kubeconfig Secret is named outside the
 * Cluster's own namespace. Every version of the group counts, and a Cluster a kind renders as well
 * as one in Git. An operator-owned source (deps.ownerOf, a config-file source) may.
 */
export function checkClusterObjects(run: ReconcileRun, deps: PipelineDependencies, objects: readonly KubernetesManifest[]): void {
  if ((deps.ownerOf?.(run.job.source) ?? 'operator') === 'operator') return;
  for (const object of objects) {
    if (!isClusterObject(object)) continue;
    const problem = clusterObjectProblem(object, object.metadata.namespace ?? run.object?.metadata.namespace ?? '');
    if (!problem) continue;
    const where = `${run.desired?.path ?? 'Git'}: Cluster ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
    throw new TerminalError('NotAllowed', `${where}: ${problem}. Source ${run.job.source} is a tenant's, and only the operator's tidemark.yaml sources may declare that; nothing was sent to the cluster for it.`);
  }
}

/** isClusterObject tells a tidemark.dev Cluster of any version. */
function isClusterObject(object: KubernetesManifest): boolean {
  return object.kind === clusterKind && typeof object.apiVersion === 'string' && object.apiVersion.split('/')[0] === clusterGroup;
}

/** clusterObjectProblem names the field of a Cluster that a tenant may not set, or undefined. */
function clusterObjectProblem(object: KubernetesManifest, namespace: string): string | undefined {
  const spec = (object as { spec?: unknown }).spec;
  if (typeof spec !== 'object' || spec === null) return undefined;
  const fields = spec as Record<string, unknown>;
  // Any value but absent or false: "true", 1 and the like are refused too, not left to the CRD.
  if (fields.inCluster !== undefined && fields.inCluster !== false) return 'spec.inCluster would reach the hub as the reconciler\'s own ServiceAccount';
  const ref = fields.kubeconfigSecretRef;
  if (typeof ref === 'object' && ref !== null && 'namespace' in ref) {
    const named = (ref as { namespace?: unknown }).namespace;
    if (named !== namespace) return `spec.kubeconfigSecretRef.namespace names ${JSON.stringify(named)}, outside the Cluster's namespace ${namespace || '(none)'}`;
  }
  return undefined;
}
