/**
 * SourceAllowList is what a source may reach, checked before any request. Patterns use `*` for any
 * run of characters; kinds are written `Kind` (core group) or `group/Kind`. Without an allow-list a source may reach everything its identity may.
 */
export interface SourceAllowList {
  /** Namespaces its namespaced objects may be in. */
  readonly namespaces: readonly string[];
  /** Namespaced kinds allowed. @defaultValue ['*'] */
  readonly kinds: readonly string[];
  /** Kinds refused even when allowed above (namespaced or cluster-scoped). @defaultValue [] */
  readonly denyKinds: readonly string[];
  /** Cluster-scoped kinds allowed; any other is refused. @defaultValue [] */
  readonly clusterKinds: readonly string[];
  /** Clusters it may apply to; a placement naming another cluster is refused. @defaultValue ['*'] */
  readonly clusters: readonly string[];
  /** May it create Namespaces (whose names match `namespaces`)? @defaultValue false */
  readonly createNamespaces: boolean;
  /**
   * ServiceAccounts (`namespace/name` patterns) that its Placement rules may name as the identity of
   * the objects they place; a rule naming any other is refused (NotAllowed). @defaultValue []
   */
  readonly serviceAccounts: readonly string[];
}
