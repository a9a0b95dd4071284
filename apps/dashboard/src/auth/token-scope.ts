/**
 * TokenScope limits a token (and its sessions) to some sources, namespaces and clusters: it sees,
 * and may act on, only records whose source, namespace and cluster match. An empty list does not
 * limit that side; a scope must name at least one source, namespace or cluster.
 */
export interface TokenScope {
  readonly sources: readonly string[];
  readonly namespaces: readonly string[];
  readonly clusters: readonly string[];
}

/** inScope tells whether a record (its source, the namespace the reconciler resolved, and its cluster) is one the scope may see. */
export function inScope(scope: TokenScope | undefined, record: { source: string; namespace: string; cluster: string }): boolean {
  if (!scope) return true;
  if (scope.sources.length > 0 && !scope.sources.includes(record.source)) return false;
  if (!clusterInScope(scope, record.cluster)) return false;
  return scope.namespaces.length === 0 || scope.namespaces.includes(record.namespace);
}

/** clusterInScope tells whether a cluster's row, page and queue figures may be shown. */
export function clusterInScope(scope: TokenScope | undefined, cluster: string): boolean {
  return !scope || scope.clusters.length === 0 || scope.clusters.includes(cluster);
}

/** sourceInScope tells whether a source's own page and records may be shown (a namespace- or cluster-only scope shows the sources its objects come from). */
export function sourceInScope(scope: TokenScope | undefined, source: string, hasObjectsInScope: boolean): boolean {
  if (!scope) return true;
  if (scope.sources.length > 0) return scope.sources.includes(source);
  return hasObjectsInScope;
}

/** coversSource: the scope covers all of a source, on every cluster and namespace (as stopping its polls or reading its previews needs). */
export function coversSource(scope: TokenScope | undefined, source: string): boolean {
  return !scope || (scope.sources.includes(source) && scope.clusters.length === 0);
}

/**
 * previewInScope: a scoped token sees (and asks for) previews of the sources it names only, since a
 * preview spans every namespace of its source. A preview also spans every cluster of its source and
 * shows their live objects, so a scope limited to some clusters sees none.
 */
export function previewInScope(scope: TokenScope | undefined, source: string): boolean {
  return coversSource(scope, source);
}

/**
 * pruneInScope: a held prune of a source on a cluster may delete its objects in any namespace, so a
 * scope sees (and confirms) it only when it covers the source (names it, or limits no source), every
 * namespace (limits none) and the cluster.
 */
export function pruneInScope(scope: TokenScope | undefined, hold: { source: string; cluster: string }): boolean {
  if (!scope) return true;
  return (scope.sources.length === 0 || scope.sources.includes(hold.source)) && scope.namespaces.length === 0 && clusterInScope(scope, hold.cluster);
}

/** scopeKey names a scope, for caches and for telling whether a token's scope changed. */
export function scopeKey(scope: TokenScope | undefined): string {
  return scope ? JSON.stringify([[...scope.sources].sort(), [...scope.namespaces].sort(), [...scope.clusters].sort()]) : '';
}
