import { mayDo, type ApiResource } from '@tidemark/cluster';
import { ConditionType, describeObject, findCondition, groupOf, NotReadyError } from '@tidemark/contracts';
import { refusalOf } from './allow-list';
import type { Declaration, DesiredStateReader, PipelineDependencies, PipelineOptions } from '../dependencies';
import type { Fetched, ReconcileRun } from '../run';

/** DuplicateRun is the part of the run the duplicate check reads: the job, its object as Git, the cluster and the last record have it. */
export type DuplicateRun = Pick<ReconcileRun, 'job' | 'ref' | 'connection' | 'desired' | 'live' | 'object' | 'previous'>;

/** DuplicateDependencies is what the duplicate check reads: every source's declarations, tenancy and Placement identities. */
export type DuplicateDependencies = Pick<PipelineDependencies, 'declarations' | 'tenancyFor' | 'connectionFor' | 'log'> & {
  desired: Pick<DesiredStateReader, 'identityAt'>;
  options?: Pick<PipelineOptions, 'defaultNamespace' | 'dependencyRecheckMs'>;
};

/** LiveObjectRef is a live object as one declaration writes it: apiVersion and kind as spelt, namespace as resolved. */
interface LiveObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * refuseDuplicates stops a run whose live object another Git object also declares (in this source
 * or another, spelt any way: kind or resource name, case, an old group, the namespace written or
 * left to the default). Neither declaration is applied or pruned until one goes; both say so, with
 * both files. The other is woken the first time, so its status says so too. A waiting error, not a
 * terminal one: the other source may resolve it without this source's revision moving. Only a
 * declaration its own source may apply counts (see refusalToApply): another tenant cannot freeze an object
 * by declaring it in a source whose allow-list forbids it.
 */
export async function refuseDuplicates(run: DuplicateRun, deps: DuplicateDependencies, served: ApiResource | undefined, fetched: Fetched, namespace: string): Promise<void> {
  const desired = fetched.desired;
  if (!deps.declarations || !desired) return;
  // A kind spelt as its resource name or in another case is not served as such, yet names one.
  const resource = served ?? await run.connection.discovery.resolveKind(desired.object.apiVersion, run.ref.kind);
  if (!resource) return;
  const own = liveIdentity({ ...resource, namespace, name: run.ref.name }, defaultNamespaceOf(deps));
  const others = await sameLiveObject(run, deps, own, resource, namespace);
  if (others.length === 0) return;
  const here = `source ${run.job.source} at ${place(desired.path, desired.line)}`;
  const there = others.map((other) => `source ${other.source} at ${place(other.path, other.line)}`);
  const message = `${describeObject({ kind: resource.kind, namespace: resource.namespaced ? namespace : '', name: run.ref.name })} on cluster ${run.job.cluster} is declared by more than one Git object: ${[here, ...there].join(' and ')}. Nothing is applied or pruned for it until only one declares it.`;
  // Woken once, when this run first sees the duplicate: a run that already said so wakes nobody (no ping-pong).
  // Two sources declaring the same key share one record, each saying it in its own order: so compare the places.
  const said = findCondition(fetched.previous?.conditions ?? [], ConditionType.Ready);
  const alreadySaid = said?.reason === 'DuplicateObject' && [here, ...there].every((where) => said.message.includes(`${where}.`) || said.message.includes(`${where} and`));
  throw new DuplicateObjectError(message, deps.options?.dependencyRecheckMs ?? 60_000, alreadySaid ? [] : others);
}

/** DuplicateObjectError is the wait of a duplicate declaration; `wake` are the other declarations finalize wakes. */
export class DuplicateObjectError extends NotReadyError {
  constructor(message: string, requeueAfterMs: number, readonly wake: Declaration[]) {
    super('DuplicateObject', message, requeueAfterMs);
  }
}

/**
 * otherDeclarations lists the Git objects, other than the run's own, that declare a live object
 * (the object being pruned, or the run's own object when it leaves Git).
 */
export async function otherDeclarations(run: DuplicateRun, deps: DuplicateDependencies, target: LiveObjectRef): Promise<Declaration[]> {
  if (!deps.declarations) return [];
  const resource = await run.connection.discovery.resolveKind(target.apiVersion, target.kind);
  if (!resource) return [];
  const own = liveIdentity({ ...resource, namespace: target.namespace, name: target.name }, defaultNamespaceOf(deps));
  return sameLiveObject(run, deps, own, resource, target.namespace);
}

/**
 * declarationsToWake: when the run's object left Git, another declaration of its live object may
 * now apply it; finalize wakes those. Empty for an object still in Git.
 */
export async function declarationsToWake(run: DuplicateRun, deps: DuplicateDependencies): Promise<Declaration[]> {
  const object = run.live ?? run.object;
  const apiVersion = object?.apiVersion ?? run.previous?.apiVersion;
  if (run.desired || !deps.declarations || !apiVersion) return [];
  const target = { apiVersion, kind: run.ref.kind, namespace: object?.metadata.namespace ?? run.previous?.namespace ?? run.ref.namespace, name: run.ref.name };
  try {
    return await otherDeclarations(run, deps, target);
  } catch (error) {
    // The other declaration's own recheck finds the change anyway; waking only makes it sooner.
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not find other declarations to wake');
    return [];
  }
}

async function sameLiveObject(run: DuplicateRun, deps: DuplicateDependencies, own: string, resource: ApiResource, namespace: string): Promise<Declaration[]> {
  const candidates = await deps.declarations!.named(run.job.cluster, run.ref.name, { source: run.job.source, revision: run.job.revision });
  const same: Declaration[] = [];
  for (const candidate of candidates) {
    if (candidate.source === run.job.source && candidate.objectKey === run.job.objectKey) continue;
    if ((await identityOf(run, deps, candidate, resource)) !== own) continue;
    const refusal = await refusalToApply(deps, candidate, run.job.cluster, { ...resource, namespace });
    if (refusal) {
      deps.log?.info({ objectKey: run.job.objectKey, other: candidate.objectKey, otherSource: candidate.source, reason: refusal }, 'a declaration its own source may not apply is not a duplicate');
      continue;
    }
    same.push(candidate);
  }
  return same;
}

/**
 * refusalToApply says why a declaration's own source may not apply it, or undefined when it may:
 * refused outright (IdentityRequired), outside its allow-list (NotAllowed), or its identity (the
 * Placement rule's ServiceAccount, else the source's) may not patch the object, by the API
 * server's authorizer. Such a declaration is not one: counting it would let any source freeze
 * another's object by naming it. The live object is ours, so the kind and namespace are the
 * resolved ones, whatever the other Git object wrote. A review that fails counts the declaration.
 */
async function refusalToApply(deps: DuplicateDependencies, declaration: Declaration, cluster: string, target: ApiResource & { namespace: string }): Promise<string | undefined> {
  const tenancy = deps.tenancyFor?.(declaration.source);
  if (tenancy?.refused) return tenancy.refused;
  const namespace = target.namespaced ? target.namespace : undefined;
  if (tenancy?.allow) {
    const apiVersion = target.group ? `${target.group}/${target.version}` : target.version;
    const refusal = refusalOf(tenancy.allow, { cluster, apiVersion, kind: target.kind, namespace, name: declaration.object.metadata.name });
    if (refusal) return refusal;
  }
  const placed = await deps.desired.identityAt?.(declaration.source, declaration.revision, declaration.path).catch(() => undefined);
  const serviceAccount = placed?.serviceAccount ?? tenancy?.serviceAccount;
  if (!serviceAccount) return undefined;
  const connection = deps.connectionFor(cluster).asServiceAccount(serviceAccount);
  const allowed = await mayDo(connection, { verb: 'patch', resource: target, namespace, name: declaration.object.metadata.name }).catch(() => true);
  return allowed ? undefined : `ServiceAccount ${serviceAccount.namespace}/${serviceAccount.name} may not patch it`;
}

/** identityOf resolves another declaration through discovery; a kind the cluster does not serve is guessed, in the scope of ours. */
async function identityOf(run: DuplicateRun, deps: DuplicateDependencies, declaration: Declaration, ours: ApiResource): Promise<string> {
  const { object } = declaration;
  const target = { namespace: object.metadata.namespace ?? '', name: object.metadata.name };
  const resolved = await run.connection.discovery.resolveKind(object.apiVersion, object.kind).catch(() => undefined);
  if (resolved) return liveIdentity({ ...resolved, ...target }, defaultNamespaceOf(deps));
  const group = groupOf(object.apiVersion);
  const plural = guessPlural(object.kind);
  const sameResource = canonicalResource(group, plural) === canonicalResource(ours.group, ours.plural);
  return liveIdentity({ group, plural, namespaced: sameResource ? ours.namespaced : target.namespace !== '', ...target }, defaultNamespaceOf(deps));
}

function defaultNamespaceOf(deps: DuplicateDependencies): string {
  return deps.options?.defaultNamespace ?? 'default';
}

function place(path: string, line: number | undefined): string {
  return line ? `${path}:${line}` : path;
}

/**
 * Resources the API server stores once and serves under two groups (kube-apiserver's
 * "cohabitating resources"): a Deployment written as `extensions/v1beta1` is the `apps` one.
 */
const cohabiting: Readonly<Record<string, string>> = Object.freeze({
  'extensions/deployments': 'apps/deployments',
  'extensions/daemonsets': 'apps/daemonsets',
  'extensions/replicasets': 'apps/replicasets',
  'extensions/networkpolicies': 'networking.k8s.io/networkpolicies',
  'extensions/ingresses': 'networking.k8s.io/ingresses',
  'extensions/podsecuritypolicies': 'policy/podsecuritypolicies',
  'events.k8s.io/events': '/events',
});

/** LiveTarget is a live object as discovery resolves it: its resource, its scope and its name. */
export interface LiveTarget {
  group: string;
  plural: string;
  namespaced: boolean;
  /** As written; '' when Git left it out. Ignored for a cluster-scoped resource. */
  namespace: string;
  name: string;
}

/** canonicalResource names a resource the same way under either of its groups: `apps/deployments`. */
export function canonicalResource(group: string, plural: string): string {
  const resource = `${group}/${plural}`;
  return cohabiting[resource] ?? resource;
}

/**
 * liveIdentity is the one name of a live object, whatever the spelling in Git: the resource under
 * its canonical group, the namespace (the default one when left out, none for a cluster-scoped
 * resource) and the name. Two declarations with one identity write one object.
 */
export function liveIdentity(target: LiveTarget, defaultNamespace: string): string {
  const namespace = target.namespaced ? target.namespace || defaultNamespace : '';
  return `${canonicalResource(target.group, target.plural)}/${namespace}/${target.name}`;
}

/**
 * guessPlural is the resource name of a kind the cluster does not serve (an `extensions` kind
 * long removed), guessed the way Kubernetes' own client does when it has no discovery.
 */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s') || lower.endsWith('x') || lower.endsWith('z') || lower.endsWith('ch') || lower.endsWith('sh')) return `${lower}es`;
  if (lower.endsWith('y') && !/[aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
