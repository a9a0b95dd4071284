/**
 * TokenScope limits a token (and its sessions) to some sources and namespaces: it sees, and may
 * act on, only records whose source and namespace match. An empty list does not limit that side;
 * a scope must name at least one source or namespace.
 */
export interface TokenScope {
  readonly sources: readonly string[];
  readonly namespaces: readonly string[];
}

/** inScope tells whether a record (its source, and the namespace the reconciler resolved) is one the scope may see. */
export function inScope(scope: TokenScope | undefined, record: { source: string; namespace: string }): boolean {
  if (!scope) return true;
  if (scope.sources.length > 0 && !scope.sources.includes(record.source)) return false;
  return scope.namespaces.length === 0 || scope.namespaces.includes(record.namespace);
}

/** sourceInScope tells whether a source's own page and records may be shown (a namespace-only scope shows the sources its objects come from). */
export function sourceInScope(scope: TokenScope | undefined, source: string, hasObjectsInScope: boolean): boolean {
  if (!scope) return true;
  if (scope.sources.length > 0) return scope.sources.includes(source);
  return hasObjectsInScope;
}

/** previewInScope: a scoped token sees (and asks for) previews of the sources it names only, since a preview spans every namespace of its source. */
export function previewInScope(scope: TokenScope | undefined, source: string): boolean {
  return !scope || scope.sources.includes(source);
}

/** scopeKey names a scope, for caches and for telling whether a token's scope changed. */
export function scopeKey(scope: TokenScope | undefined): string {
  return scope ? JSON.stringify([[...scope.sources].sort(), [...scope.namespaces].sort()]) : '';
}
