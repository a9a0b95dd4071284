import { ApiError, getByResource, type ApiResource, type CacheAnswer, type ObjectCache } from '@tidemark/cluster';
import { isReconcileFailure, jobFlags, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { inventoryEntry, inventoryId } from '../render/tracking';

/**
 * runCache is the watch cache a run may read from, or undefined when it must read live:
 * - no cache for the cluster, or the run acts as a source's ServiceAccount (the cache was filled
 *   with the reconciler's identity, and a source may only learn what its own identity may read);
 * - the job is `fresh` (a watch event or a person woke it): the event may not have reached this
 *   process's cache yet, and a read behind it would skip what woke it;
 * - the run is the live retry of one whose cached read met a 404 or a conflict.
 */
export function runCache(run: ReconcileRun, deps: Pick<PipelineDependencies, 'cacheFor'>): ObjectCache | undefined {
  if (run.liveReads || run.connection.identity !== undefined) return undefined;
  if (jobFlags(run.job).fresh) return undefined;
  return deps.cacheFor?.(run.job.cluster);
}

/**
 * readLiveObject reads one live object from the cache when it holds it fresh enough, else from
 * the API server. `previous` is the last run's record (fetch reads it before the run holds it).
 */
export async function readLiveObject(run: ReconcileRun, deps: Pick<PipelineDependencies, 'cacheFor'>, target: { resource: ApiResource; namespace: string; name: string }, previous: ObjectStatus | undefined): Promise<KubernetesManifest | undefined> {
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
export function cachedLive(run: ReconcileRun, deps: Pick<PipelineDependencies, 'cacheFor'>): ((object: KubernetesManifest, namespace: string) => CacheAnswer | undefined) | undefined {
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
export function isStaleCacheSymptom(run: ReconcileRun, error: unknown): boolean {
  if (!run.cachedReads) return false;
  const cause = isReconcileFailure(error) ? (error as { cause?: unknown }).cause : error;
  return cause instanceof ApiError && cause.mayBeStaleRead;
}
