import type { ReconcileJob } from '@tidemark/contracts';

/** ObjectRoute is where one object goes at a revision, and where it was before. */
export interface ObjectRoute {
  source: string;
  revision: string;
  objectKey: string;
  /** Not in Git at the revision. */
  removed: boolean;
  /** Clusters placement selects for it now (ignored when removed). */
  targets: readonly string[];
  /** Clusters that hold it now, from the status store. */
  known: readonly string[];
  /**
   * For a removed object: the clusters placement sent it to at the revision it was removed from.
   * A worker that admitted the new head before this poll routed it may have pruned the object
   * there already and forgotten its record, so the store alone would route no job, and the
   * commit would get no job and no status on that cluster. @defaultValue []
   */
  placedBefore?: readonly string[];
  /** Why it is routed again: a Git change, or a resync of everything. */
  reason: 'git-change' | 'resync';
}

/**
 * jobsForRoute gives one job per cluster: a reconcile where placement sends the object, and a
 * prune where it is no longer sent (removed from Git, or its cluster left the placement). The
 * pipeline makes the same placement decision again, so a job can never apply to the wrong cluster.
 */
export function jobsForRoute(route: ObjectRoute): ReconcileJob[] {
  const job = (cluster: string, reason: ReconcileJob['reason']): ReconcileJob => ({ source: route.source, revision: route.revision, cluster, objectKey: route.objectKey, reason });
  if (route.removed) return [...new Set([...route.known, ...(route.placedBefore ?? [])])].map((cluster) => job(cluster, 'git-removed'));
  const targets = new Set(route.targets);
  return [
    ...route.targets.map((cluster) => job(cluster, route.reason)),
    ...route.known.filter((cluster) => !targets.has(cluster)).map((cluster) => job(cluster, 'git-removed')),
  ];
}
