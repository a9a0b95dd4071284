/**
 * ServedNamespaces are the namespaces whose Source objects a reconciler serves: a list (one watch
 * of Sources and one of Secrets in each, which a Role per namespace allows), or 'all' (one
 * cluster-wide watch each, which needs a ClusterRole).
 */
export type ServedNamespaces = 'all' | readonly string[];

/** servesNamespace tells whether a Source (or a Secret it names) in this namespace is served. */
export function servesNamespace(served: ServedNamespaces, namespace: string): boolean {
  return served === 'all' || served.includes(namespace);
}

/** watchedNamespaces gives the namespace of each watch to run: '' is every namespace. */
export function watchedNamespaces(served: ServedNamespaces): readonly string[] {
  return served === 'all' ? [''] : served;
}
