import { ConditionType, isReconcileFailure, NotReadyError, TerminalError, contentHash, findCondition, jobFlags, parseObjectKey, type KubernetesManifest, type ReconcileJob, type ObjectStatus } from '@tidemark/contracts';
import { toReconcileFailure, ApiError, getByResource, type ApiResource, type CacheAnswer, type ObjectCache } from '@tidemark/cluster';
import type { StatusStore } from '@tidemark/status-store';
import { subjectOf } from '../observe/subject';
import type { DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { Fetched, FetchResult, PlacedConnections, ReconcileRun } from '../run';
import { runConnections, checkAllowed, type ConnectionDependencies } from './tenancy';
import { refuseDuplicates, type DuplicateDependencies } from './duplicate-check';
import { inventoryEntry, inventoryId } from '../render/tracking';

/**
 * FetchDependencies is what fetch reads: Git (no write), the last status record, the kinds, the
 * run's connections, and what the allow-list, duplicate and cache checks beside it read.
 */
export type FetchDependencies = ConnectionDependencies & DuplicateDependencies & Pick<PipelineDependencies, 'kinds' | 'cacheFor'> & {
  desired: Pick<DesiredStateReader, 'admitRevision' | 'readObject' | 'identityAt'>;
  statusStore: Pick<StatusStore, 'get'>;
};

/**
 * fetchStage reads the desired object from Git at the job's revision, the live object from the
 * cluster and the last status, and says what the run does with them. A suspended object is
 * skipped. A stalled object whose spec did not change is skipped at the revision it stalled at,
 * and stalls again at a new revision: the pipeline alone decides "stalled", the queue follows.
 */
export async function fetchStage(run: ReconcileRun, deps: FetchDependencies): Promise<FetchResult> {
  run.stage = 'fetch';
  const job = await admitted(run.job, deps);
  const previous = await deps.statusStore.get(job.cluster, job.objectKey);
  if (previous?.suspended) return { action: 'skip', fetched: { revision: job.revision, previous } };
  const desired = await deps.desired.readObject(job.source, job.revision, job.objectKey, job.cluster);
  const fetched: Fetched = { revision: job.revision, previous, desired, specHash: desired ? contentHash(desired.object) : undefined };
  const stalled = stalledVerdict(job, fetched);
  if (stalled) return stalled;
  const apiVersion = desired?.object.apiVersion ?? previous?.apiVersion;
  if (!apiVersion) return { action: 'reconcile', fetched }; // Neither in Git nor ever reconciled: nothing to do.
  let acting = fetched;
  try {
    const placedAs = await placedConnections(job, deps, fetched);
    if (placedAs) acting = { ...fetched, placedAs };
    const actingRun: ReconcileRun = placedAs ? { ...run, connection: placedAs.connection, actionsConnection: placedAs.actionsConnection } : run;
    return { action: 'reconcile', fetched: { ...acting, ...(await readCluster(actingRun, deps, fetched, apiVersion)) } };
  } catch (error) {
    // A refusal (not allowed, a duplicate) keeps what fetch read: the record's inventory and apiVersion stay,
    // and a refusal by the API server is reported against the identity that asked.
    if (isReconcileFailure(error)) return { action: 'fail', fetched: acting, failure: error };
    // The API server's answer to a rule's ServiceAccount: mapped here, so the run reports it as that identity.
    if (acting.placedAs) return { action: 'fail', fetched: acting, failure: toReconcileFailure(error, `fetch ${subjectOf(run)}`) };
    throw error;
  }
}

/**
 * placedConnections: when the Placement rule that places the object (where Git declares it now, or
 * last declared it, for an object that left Git) names a ServiceAccount, the run acts as that
 * from here on, as runConnections decides (it refuses a ServiceAccount the source does not allow).
 */
async function placedConnections(job: ReconcileJob, deps: FetchDependencies, fetched: Fetched): Promise<PlacedConnections | undefined> {
  const path = placedPath(fetched);
  if (path === undefined || !deps.desired.identityAt) return undefined;
  const placed = await deps.desired.identityAt(job.source, job.revision, path);
  if (!placed) return undefined;
  const connections = runConnections(job, deps, placed);
  return { connection: connections.connection, actionsConnection: connections.actions, rule: placed.rule };
}

/** placedPath is what placement matches: the file, or a render unit's folder with a trailing '/'. */
function placedPath({ desired, previous }: Fetched): string | undefined {
  const path = desired?.path ?? previous?.path;
  if (path === undefined) return undefined;
  return (desired ? desired.unit : previous?.renderUnit) ? `${path.replace(/\/+$/, '')}/` : path;
}

async function admitted(job: ReconcileJob, deps: FetchDependencies): Promise<ReconcileJob> {
  if (!deps.desired.admitRevision) return job;
  return { ...job, revision: await deps.desired.admitRevision(job.source, job.revision, job.cluster) };
}

/** readCluster finds the kind's plugin and resource, the namespace it is applied in, and the live object. */
async function readCluster(run: ReconcileRun, deps: FetchDependencies, fetched: Fetched, apiVersion: string): Promise<Pick<Fetched, 'plugin' | 'object' | 'live' | 'kindNotServed'>> {
  const plugin = deps.kinds.pluginFor(apiVersion, run.ref.kind);
  const resource = await resourceOrUndefined(run, apiVersion);
  const namespace = namespaceFor(run, fetched, resource, deps.options?.defaultNamespace ?? 'default');
  checkAllowed(run, deps, resource, namespace, apiVersion);
  await refuseDuplicates(run, deps, resource, fetched, namespace);
  const object = fetched.desired ? withNamespace(fetched.desired.object, namespace) : undefined;
  const live = resource ? await readLiveObject(run, deps, { resource, namespace, name: run.ref.name }, fetched.previous) : undefined;
  return { plugin, object, live, ...(resource ? {} : { kindNotServed: true }) };
}

/**
 * stalledVerdict: a terminal failure is not retried until the spec changes (or a person asks: the job's `retry`).
 * At the revision it stalled at, the run is skipped; at a new revision with the same spec, it
 * fails again with the same reason, so the queue's marker moves to that revision and retry finds it.
 */
function stalledVerdict(job: ReconcileJob, fetched: Fetched): FetchResult | undefined {
  const { previous, specHash } = fetched;
  if (jobFlags(job).retry || !specHash || previous?.specHash !== specHash) return undefined;
  const stalled = findCondition(previous.conditions, ConditionType.Stalled);
  if (stalled?.status !== 'True') return undefined;
  if (previous.lastAttemptedRevision === job.revision) return { action: 'skip', fetched };
  return { action: 'stallAgain', fetched, failure: new TerminalError(stalled.reason, stalled.message) };
}

async function resourceOrUndefined(run: ReconcileRun, apiVersion: string): Promise<ApiResource | undefined> {
  try {
    return await run.connection.discovery.resourceFor(apiVersion, run.ref.kind);
  } catch (error) {
    // The kind's CRD may not be installed yet: the order stage waits for it.
    if (error instanceof NotReadyError) return undefined;
    throw error;
  }
}

/**
 * namespaceFor is where the object lives: Git (the object, or its key) and discovery decide, then
 * the configured default. Never the status record: it comes from Redis, and whoever can write
 * Redis would choose the namespace an object Git declares without one is applied in.
 */
function namespaceFor(run: ReconcileRun, fetched: Fetched, resource: ApiResource | undefined, defaultNamespace: string): string {
  if (resource && !resource.namespaced) return '';
  return fetched.desired?.object.metadata.namespace || parseObjectKey(run.job.objectKey).namespace || defaultNamespace;
}

function withNamespace(object: KubernetesManifest, namespace: string): KubernetesManifest {
  if (!namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** CacheRun is the part of the run a read through the watch cache reads, and the count of cached reads it keeps. */
export type CacheRun = Pick<ReconcileRun, 'job' | 'connection' | 'previous' | 'liveReads' | 'cachedReads'>;

/**
 * runCache is the watch cache a run may read from, or undefined when it must read live:
 * - no cache for the cluster, or the run acts as a source's ServiceAccount (the cache was filled
 *   with the reconciler's identity, and a source may only learn what its own identity may read);
 * - the job is `fresh` (a watch event or a person woke it): the event may not have reached this
 *   process's cache yet, and a read behind it would skip what woke it;
 * - the run is the live retry of one whose cached read met a 404 or a conflict.
 */
export function runCache(run: CacheRun, deps: Pick<PipelineDependencies, 'cacheFor'>): ObjectCache | undefined {
  if (run.liveReads || run.connection.identity !== undefined) return undefined;
  if (jobFlags(run.job).fresh) return undefined;
  return deps.cacheFor?.(run.job.cluster);
}

/**
 * readLiveObject reads one live object from the cache when it holds it fresh enough, else from
 * the API server. `previous` is the last run's record (fetch reads it before the run holds it).
 */
export async function readLiveObject(run: CacheRun, deps: Pick<PipelineDependencies, 'cacheFor'>, target: { resource: ApiResource; namespace: string; name: string }, previous: ObjectStatus | undefined): Promise<KubernetesManifest | undefined> {
  const { resource, namespace, name } = target;
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  const answer = runCache(run, deps)?.lookup({ apiVersion, kind: resource.kind, namespace, name }, recordedVersion(previous, { apiVersion, kind: resource.kind, metadata: { name, namespace } }));
  if (answer) {
    run.cachedReads = (run.cachedReads ?? 0) + 1;
    return answer.object;
  }
  return getByResource(run.connection, resource, namespace || undefined, name);
}

/** cachedLive is the change set's `cached` option: the cache's answer for a rendered object, counted on the run. */
export function cachedLive(run: CacheRun, deps: Pick<PipelineDependencies, 'cacheFor'>): ((object: KubernetesManifest, namespace: string) => CacheAnswer | undefined) | undefined {
  const cache = runCache(run, deps);
  if (!cache) return undefined;
  return (object, namespace) => {
    const answer = cache.lookup({ apiVersion: object.apiVersion, kind: object.kind, namespace, name: object.metadata.name }, recordedVersion(run.previous, object));
    if (answer) run.cachedReads = (run.cachedReads ?? 0) + 1;
    return answer;
  };
}

/**
 * recordedVersion is the resourceVersion the object's last apply (or /status write) left, from
 * the last run's record: the cache must have seen at least that much to answer for it.
 */
function recordedVersion(previous: ObjectStatus | undefined, object: Pick<KubernetesManifest, 'apiVersion' | 'kind'> & { metadata: { name: string; namespace?: string } }): string | undefined {
  const versions = previous?.appliedVersions;
  if (!versions || typeof versions !== 'object') return undefined;
  const version: unknown = versions[inventoryId(inventoryEntry(object as KubernetesManifest))];
  const resourceVersion = (version as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof resourceVersion === 'string' ? resourceVersion : undefined;
}

/**
 * isStaleCacheSymptom: a run that read from the cache and failed with a 404 or a conflict may
 * have acted on an object that had changed or gone behind the cache's back; it runs again with
 * live reads (server-side apply stays the authority on writes).
 */
export function isStaleCacheSymptom(run: Pick<ReconcileRun, 'cachedReads'>, error: unknown): boolean {
  if (!run.cachedReads) return false;
  const cause = isReconcileFailure(error) ? (error as { cause?: unknown }).cause : error;
  return cause instanceof ApiError && cause.mayBeStaleRead;
}
