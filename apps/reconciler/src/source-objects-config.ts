import { Type, type Static } from '@sinclair/typebox';
import { AllowInput, allowOf, type SourceAllow } from '@tidemark/git-source';
import type { SourceObjectRules } from '@tidemark/source-objects';

const namespaceName = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** SourceObjectsInput is the `sourceObjects` section of tidemark.yaml: whether, and where, Source objects are served. */
export const SourceObjectsInput = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  cluster: Type.Optional(Type.String({ minLength: 1 })),
  /** The namespaces whose Sources are served, or ['*'] for every namespace. */
  namespaces: Type.Optional(Type.Array(Type.Union([Type.String({ pattern: namespaceName }), Type.Literal('*')]), { minItems: 1, uniqueItems: true })),
  allowCrossNamespaceRefs: Type.Optional(Type.Boolean()),
  defaultServiceAccountName: Type.Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' })),
  /** The ceiling of every Source's allow-list (same fields as a source's `allow`). */
  allow: Type.Optional(AllowInput),
}, { additionalProperties: false });

/** SourceObjectsConfig says where Source objects are watched and what they may reference. */
export interface SourceObjectsConfig {
  /** @defaultValue false */
  readonly enabled: boolean;
  /** The management cluster. @defaultValue the first cluster */
  readonly cluster: string;
  /**
   * The namespaces whose Sources are served and whose Secrets are read, one watch each; 'all' (`*`)
   * watches cluster-wide and needs a ClusterRole. @defaultValue the reconciler's own namespace (TIDEMARK_NAMESPACE)
   */
  readonly namespaces: 'all' | readonly string[];
  /** May a Source name a Secret or ServiceAccount in another namespace? @defaultValue false */
  readonly allowCrossNamespaceRefs: boolean;
  /**
   * A Source without serviceAccount acts as this ServiceAccount of its own namespace.
   * @defaultValue none: such a Source is refused (IdentityRequired), never run as the reconciler
   */
  readonly defaultServiceAccountName?: string;
  /** The ceiling of every Source's allow-list: a Source can only narrow it. @defaultValue none */
  readonly allow?: SourceAllow;
}

interface SourceObjectsContext {
  clusters: readonly string[];
  /** The reconciler's own namespace (TIDEMARK_NAMESPACE, set by deploy/ from the pod's), if known. */
  ownNamespace: string | undefined;
  invalid(field: string, message: string): Error;
}

/**
 * sourceObjectsConfig validates the section. Without `namespaces`, Sources are served in the
 * reconciler's own namespace only, so the least-privilege RBAC of deploy/ (a Role there) is enough;
 * outside a cluster, where that namespace is unknown, they must be named.
 */
export function sourceObjectsConfig(input: Static<typeof SourceObjectsInput> | undefined, context: SourceObjectsContext): SourceObjectsConfig {
  const options = input ?? {};
  if (options.cluster && !context.clusters.includes(options.cluster)) throw context.invalid('sourceObjects.cluster', `no cluster is named "${options.cluster}"`);
  const enabled = options.enabled ?? false;
  return {
    enabled,
    cluster: options.cluster ?? context.clusters[0] ?? '',
    namespaces: enabled ? servedNamespaces(options.namespaces, context) : [],
    allowCrossNamespaceRefs: options.allowCrossNamespaceRefs ?? false,
    ...(options.defaultServiceAccountName ? { defaultServiceAccountName: options.defaultServiceAccountName } : {}),
    ...(options.allow ? { allow: allowOf(options.allow) } : {}),
  };
}

function servedNamespaces(namespaces: readonly string[] | undefined, context: SourceObjectsContext): 'all' | readonly string[] {
  if (namespaces?.includes('*')) {
    if (namespaces.length > 1) throw context.invalid('sourceObjects.namespaces', '"*" (every namespace) cannot be listed with other namespaces');
    return 'all';
  }
  if (namespaces) return namespaces;
  if (!context.ownNamespace) {
    throw context.invalid('sourceObjects.namespaces', 'none given, and TIDEMARK_NAMESPACE (the reconciler\'s own namespace, the default) is not set; list the namespaces whose Source objects Tidemark serves, or "*" for every namespace');
  }
  return [context.ownNamespace];
}

/** sourceObjectRules are the section's rules every Source is parsed under (the ServiceAccount default, the allow ceiling). */
export function sourceObjectRules(config: SourceObjectsConfig): SourceObjectRules {
  return {
    allowCrossNamespaceRefs: config.allowCrossNamespaceRefs,
    ...(config.defaultServiceAccountName ? { defaultServiceAccountName: config.defaultServiceAccountName } : {}),
    ...(config.allow ? { allow: config.allow } : {}),
  };
}
