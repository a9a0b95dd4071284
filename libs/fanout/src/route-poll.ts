import { isReadOnlyKey, type ReconcileJob } from '@tidemark/contracts';
import type { GitSource, ObjectChange, PollResult } from '@tidemark/git-source';
import { clusterSelectorAnnotation, type ClusterTarget, type PlacementCache } from '@tidemark/placement';
import type { StatusStore } from '@tidemark/status-store';
import { jobsForRoute } from './fan-out';
import { changesWithHooks } from './hook-routes';

export interface RouteContext {
  source: GitSource;
  placement: PlacementCache;
  clusters: readonly ClusterTarget[];
  statusStore: StatusStore;
}

/**
 * routePoll turns a poll into jobs. Normally only the changed objects are routed; when a
 * Placement changed, or the poll had no previous revision (so removals are unknown), every
 * object the source has or had is routed again, so moves between clusters and removals are seen.
 * A HealthRule changed routes every object again too, to be judged by it. Placement and
 * HealthRule objects are read, never applied (isReadOnlyKey, which previews use too): they get no
 * job, and any change to one routes everything again, since it exists to change how others go.
 * Sync hooks are routed at every poll that changes something (changesWithHooks).
 */
export async function routePoll(result: PollResult, context: RouteContext): Promise<ReconcileJob[]> {
  // Hooks run again whenever the revision changes anything: each is routed as changed.
  const changes = await changesWithHooks(context.source, result);
  const everything = !result.previousRevision || result.changes.some((change) => isReadOnlyKey(change.objectKey));
  // Where each object is now: for every object of the source only when everything is routed again.
  const clusterNames = context.clusters.map((cluster) => cluster.name);
  const known = await context.statusStore.holders(result.source, clusterNames, everything ? undefined : [...changes.keys()]);
  const paths = new Map<string, string>();
  for (const change of changes.values()) if (change.change !== 'removed') paths.set(change.objectKey, change.path);
  if (everything) {
    for (const object of (await context.source.listObjects(result.revision)).objects) paths.set(object.objectKey, object.path);
  }
  const keys = new Set([...changes.keys(), ...(everything ? [...paths.keys(), ...known.keys()] : [])]);
  // Placement rules that do not parse fail the whole route, before any job (libs/placement decides where each goes).
  await context.placement.rules(result.source, context.source, result.revision);
  const jobs: ReconcileJob[] = [];
  for (const objectKey of keys) {
    if (isReadOnlyKey(objectKey)) continue;
    const path = paths.get(objectKey);
    // The annotation alone, from the index the poll parsed: never the whole object read again.
    const clusterSelector = path === undefined ? undefined : await context.source.annotationOf(result.revision, objectKey, clusterSelectorAnnotation);
    jobs.push(...jobsForRoute({
      source: result.source,
      revision: result.revision,
      objectKey,
      removed: path === undefined,
      targets: path === undefined ? [] : await context.placement.targetsOf(result.source, context.source, result.revision, { path, clusterSelector }, context.clusters),
      known: known.get(objectKey) ?? [],
      ...(path === undefined ? { placedBefore: await placedBefore(result, context, changes.get(objectKey)) } : {}),
      reason: changes.has(objectKey) ? 'git-change' : 'resync',
    }));
  }
  return jobs;
}

/**
 * placedBefore is where placement sent a removed object at the revision it was removed from (the
 * poll's previous one): a worker may have admitted this poll's head before it was routed, pruned
 * the object and forgotten its record, and the store then names no cluster. A prune job where the
 * object is gone finds nothing to do, and its commit still gets its status there.
 */
async function placedBefore(result: PollResult, context: RouteContext, change: ObjectChange | undefined): Promise<string[]> {
  const previous = result.previousRevision;
  if (!previous || change?.change !== 'removed') return [];
  try {
    const clusterSelector = await context.source.annotationOf(previous, change.objectKey, clusterSelectorAnnotation);
    return await context.placement.targetsOf(result.source, context.source, previous, { path: change.path, clusterSelector }, context.clusters);
  } catch {
    // The previous revision no longer reads (its rules, its index): the store's holders alone, as before.
    return [];
  }
}
