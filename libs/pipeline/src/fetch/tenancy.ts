import { applyObject, type ClusterConnection, type ApiResource } from '@tidemark/cluster';
import { TerminalError, NotReadyError, type KubernetesManifest, type ReconcileFailure, type ReconcileJob } from '@tidemark/contracts';
import type { PipelineDependencies, PlacedIdentity } from '../dependencies';
import type { ReconcileRun } from '../run';
import { refusalOf, serviceAccountRefusal, type AllowList } from './allow-list';

/** RunConnections are the two identities a run uses. */
export interface RunConnections {
  /** Every read and write about the source's objects: GET, dry-run, apply, prune, a kind's actions. */
  connection: ClusterConnection;
  /** The kind's second field manager, under the same identity. */
  actions: ClusterConnection;
  /**
   * The reconciler's own identity, only for what Tidemark reports about an object the run has
   * already read or written as the source: the CR's /status and Events.
   */
  reporting: ClusterConnection;
  /** The Placement rule whose ServiceAccount the run acts as, when one does (for messages). */
  rule?: string;
}

/**
 * runConnections is the one place that decides which identity a run acts as. Anything that answers
 * a run's reads (a cache filled with the reconciler's identity, say) must take its answer from here:
 * when `connection.identity` is set, the source may only learn what that ServiceAccount may read.
 *
 * Precedence: the ServiceAccount of the Placement rule that places the object (`placed`), then the
 * source's own, then `defaultServiceAccount` (the lockdown, folded into tenancyFor), then the
 * reconciler's own. A rule's ServiceAccount counts only when the source's allow.serviceAccounts
 * lists it: Placement objects are in Git, so without that a Git author could name another tenant's
 * identity. A rule naming one not listed is refused (NotAllowed) before any request, and so fails
 * closed under the lockdown too. A source whose tenancy is `refused` (a Source object without an
 * identity) acts as nobody: IdentityRequired, before any request.
 */
/** ConnectionDependencies is what runConnections reads: the reconciler's connections and each source's tenancy. */
export type ConnectionDependencies = Pick<PipelineDependencies, 'connectionFor' | 'actionsConnectionFor' | 'tenancyFor'>;

export function runConnections(job: ReconcileJob, deps: ConnectionDependencies, placed?: PlacedIdentity): RunConnections {
  const own = deps.connectionFor(job.cluster);
  const actions = deps.actionsConnectionFor(job.cluster);
  const tenancy = deps.tenancyFor?.(job.source);
  if (tenancy?.refused) throw new TerminalError('IdentityRequired', `${tenancy.refused} Nothing was sent to the cluster for ${job.objectKey}.`);
  if (placed) {
    const refusal = serviceAccountRefusal(tenancy?.allow, placed.serviceAccount);
    if (refusal) {
      const { namespace, name } = placed.serviceAccount;
      throw new TerminalError('NotAllowed', `Source ${job.source} may not apply ${job.objectKey} as ServiceAccount ${namespace}/${name}, which ${placed.rule} names: ${refusal}. Nothing was sent to the cluster for it; change the rule in Git or the source's allow-list.`);
    }
  }
  const serviceAccount = placed?.serviceAccount ?? tenancy?.serviceAccount;
  if (!serviceAccount) return { connection: own, actions, reporting: own };
  return {
    connection: own.asServiceAccount(serviceAccount),
    actions: actions.asServiceAccount(serviceAccount),
    reporting: own,
    ...(placed ? { rule: placed.rule } : {}),
  };
}

/**
 * identityFailure: the API server refusing a source's ServiceAccount is the source overreaching,
 * not Tidemark lacking a permission, so it stalls (Stalled, reason Forbidden, the API server's
 * message) instead of being retried; a changed object or a retry from the dashboard runs it again.
 */
export function identityFailure(run: Pick<ReconcileRun, 'job' | 'connection' | 'placedAs'>, failure: ReconcileFailure): ReconcileFailure {
  const identity = run.connection.identity;
  if (!identity || failure.code !== 'Forbidden' || failure instanceof TerminalError) return failure;
  const message = failure.message.replace(/ Grant Tidemark's service account this permission; it will be retried\.$/, '');
  const namedBy = run.placedAs ? ` (named by ${run.placedAs.rule})` : '';
  return new TerminalError('Forbidden', `${message} Source ${run.job.source} acts as ${identity}${namedBy} on cluster ${run.job.cluster}, which may not do this; grant that ServiceAccount the permission, or change the object in Git.`, { cause: failure, category: 'forbidden' });
}

/**
 * identityPreflight: under a source's ServiceAccount, every object a kind renders is dry-run first,
 * so an object the ServiceAccount may not write stops the run before any of them is applied
 * (the CR was dry-run by validate, or is created first, before any of them). Nothing is applied
 * half-way for the CR.
 */
export async function identityPreflight(run: Pick<ReconcileRun, 'connection' | 'plugin'>, rendered: readonly KubernetesManifest[]): Promise<void> {
  if (!run.connection.identity || !run.plugin) return;
  for (const object of rendered) await applyObject(run.connection, object, { dryRun: true });
}

/**
 * checkAllowed refuses, before any request about it, an object its source's allow-list does not
 * cover: Stalled with reason NotAllowed and the rule. Nothing is read, applied or pruned for it.
 * `resource` is undefined while the API server does not serve the kind: its scope is unknown then,
 * so it waits rather than guess.
 */
export function checkAllowed(run: Pick<ReconcileRun, 'job' | 'ref'>, deps: Pick<PipelineDependencies, 'tenancyFor'>, resource: ApiResource | undefined, namespace: string, apiVersion: string): void {
  const allow = deps.tenancyFor?.(run.job.source)?.allow;
  if (!allow) return;
  if (!resource) {
    throw new NotReadyError('KindNotServed', `${apiVersion} ${run.ref.kind} is not served on cluster ${run.job.cluster} yet, so whether source ${run.job.source} may apply it cannot be checked; waiting for its CRD.`, 5_000);
  }
  refuse(run, allow, { apiVersion, kind: run.ref.kind, namespace: resource.namespaced ? namespace : undefined, name: run.ref.name });
}

/** checkRenderedAllowed holds the objects a kind renders (a WebApp's Deployment, Service, …) to the same allow-list. */
export async function checkRenderedAllowed(run: Pick<ReconcileRun, 'job' | 'connection'>, deps: Pick<PipelineDependencies, 'tenancyFor'>, rendered: readonly KubernetesManifest[]): Promise<void> {
  const allow = deps.tenancyFor?.(run.job.source)?.allow;
  if (!allow) return;
  for (const object of rendered) {
    const resource = await run.connection.discovery.resourceFor(object.apiVersion, object.kind);
    refuse(run, allow, { apiVersion: object.apiVersion, kind: object.kind, namespace: resource.namespaced ? object.metadata.namespace ?? '' : undefined, name: object.metadata.name });
  }
}

function refuse(run: Pick<ReconcileRun, 'job'>, allow: AllowList, target: { apiVersion: string; kind: string; namespace: string | undefined; name: string }): void {
  const refusal = refusalOf(allow, { ...target, cluster: run.job.cluster });
  if (!refusal) return;
  const place = target.namespace ? `${target.namespace}/${target.name}` : target.name;
  throw new TerminalError('NotAllowed', `Source ${run.job.source} may not apply ${target.kind} ${place} to cluster ${run.job.cluster}: ${refusal}. Nothing was sent to the cluster for it; change the object in Git or the source's allow-list.`);
}
