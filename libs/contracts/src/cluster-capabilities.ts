/**
 * ClusterCapabilities is what a cluster's discovery says to a renderer that branches on it (Helm's
 * `.Capabilities`): the server's version, every served group/version and group/version/Kind, and
 * which kinds are cluster-scoped, so a chart's namespace-less objects land where `helm install` puts them.
 */
export interface ClusterCapabilities {
  /** The API server's gitVersion, e.g. `v1.31.2`. */
  kubeVersion: string;
  /** Sorted: `apps/v1`, `apps/v1/Deployment`, `v1`, `v1/Service`, … as `helm install` hands them to the chart. */
  apiVersions: readonly string[];
  /** Sorted `group/Kind` of the cluster-scoped kinds (`/Namespace` for the core group). */
  clusterScopedKinds: readonly string[];
}
