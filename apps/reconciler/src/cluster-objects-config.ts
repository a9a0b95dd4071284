import { Type, type Static } from '@sinclair/typebox';

/** ClusterObjectsInput is the `clusterObjects` section of tidemark.yaml: whether, and where, Cluster objects are served. */
export const ClusterObjectsInput = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  /** The management cluster, where Cluster objects and their Secrets live. */
  cluster: Type.Optional(Type.String({ minLength: 1 })),
  /** The one namespace whose Clusters are served (and whose Secrets are read). */
  namespace: Type.Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' })),
  /** May a Cluster's spec.allowExecPlugins let its kubeconfig run a credential plugin? */
  allowExecPlugins: Type.Optional(Type.Boolean()),
  /** How often each Cluster's API server is asked its version (status: Reachable, serverVersion, lastContact). */
  probeIntervalMs: Type.Optional(Type.Integer({ minimum: 200 })),
}, { additionalProperties: false });

/** ClusterObjectsConfig says where Cluster objects are watched and what they may do. */
export interface ClusterObjectsConfig {
  /** @defaultValue false */
  readonly enabled: boolean;
  /** The management cluster. @defaultValue sourceObjects.cluster, else the first cluster */
  readonly cluster: string;
  /**
   * The namespace of the Clusters and their kubeconfig Secrets: one Role there is all deploy/ grants.
   * @defaultValue the reconciler's own namespace (TIDEMARK_NAMESPACE)
   */
  readonly namespace: string;
  /** @defaultValue false: no Cluster's kubeconfig may run an exec plugin or auth-provider */
  readonly allowExecPlugins: boolean;
  /** @defaultValue 15000 */
  readonly probeIntervalMs: number;
}

interface ClusterObjectsContext {
  clusters: readonly string[];
  /** The management cluster of Source objects, the default here too. */
  managementCluster: string;
  /** The reconciler's own namespace (TIDEMARK_NAMESPACE, set by deploy/ from the pod's), if known. */
  ownNamespace: string | undefined;
  invalid(field: string, message: string): Error;
}

/**
 * clusterObjectsConfig validates the section. Clusters are served in one namespace only, the
 * reconciler's own by default, so their Secrets are read under a Role there and never cluster-wide.
 */
export function clusterObjectsConfig(input: Static<typeof ClusterObjectsInput> | undefined, context: ClusterObjectsContext): ClusterObjectsConfig {
  const options = input ?? {};
  if (options.cluster && !context.clusters.includes(options.cluster)) throw context.invalid('clusterObjects.cluster', `no cluster is named "${options.cluster}"; Cluster objects are read from a config-file cluster`);
  const enabled = options.enabled ?? false;
  const namespace = options.namespace ?? context.ownNamespace ?? '';
  if (enabled && !namespace) {
    throw context.invalid('clusterObjects.namespace', 'none given, and TIDEMARK_NAMESPACE (the reconciler\'s own namespace, the default) is not set; name the namespace whose Cluster objects and kubeconfig Secrets Tidemark serves');
  }
  return {
    enabled,
    cluster: options.cluster ?? context.managementCluster,
    namespace,
    allowExecPlugins: options.allowExecPlugins ?? false,
    probeIntervalMs: options.probeIntervalMs ?? 15_000,
  };
}
