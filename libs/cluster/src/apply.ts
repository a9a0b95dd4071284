import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { resourcePath, type ApiResource } from './resource-path';

export interface ApplyOptions {
  /** Ask the server to compute the result without persisting it. @defaultValue false */
  dryRun?: boolean;
  /** Take ownership of fields other managers hold, as Kubernetes asks controllers to. @defaultValue true */
  force?: boolean;
  /** Apply to a subresource, e.g. 'status'. */
  subresource?: string;
  /** Receives the API server's warnings about this request. */
  warnings?: string[];
}

/** applyObject server-side applies one object with the connection's field manager. */
export async function applyObject(connection: ClusterConnection, object: KubernetesManifest, options: ApplyOptions = {}): Promise<KubernetesManifest> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  return applyToResource(connection, resource, object, options);
}

/** applyToResource is applyObject for a resource already resolved by discovery. */
export function applyToResource(connection: ClusterConnection, resource: ApiResource, object: KubernetesManifest, options: ApplyOptions = {}): Promise<KubernetesManifest> {
  const namespace = resource.namespaced ? object.metadata.namespace : undefined;
  const body = resource.namespaced ? object : withoutNamespace(object);
  const verb = options.dryRun ? 'dry-run apply' : 'apply';
  return connection.client.request<KubernetesManifest>({
    method: 'PATCH',
    path: resourcePath(resource, namespace, object.metadata.name, options.subresource),
    query: {
      fieldManager: connection.fieldManager,
      force: options.force ?? true,
      dryRun: options.dryRun ? 'All' : undefined,
    },
    body,
    contentType: 'application/apply-patch+yaml',
    ...(options.warnings ? { warnings: options.warnings } : {}),
    what: `${verb} ${describe(object)}${options.subresource ? `/${options.subresource}` : ''} on ${connection.name}`,
  });
}

/** describe names an object the way messages do: `Kind namespace/name`. */
export function describe(object: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return `${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
}

function withoutNamespace(object: KubernetesManifest): KubernetesManifest {
  const { namespace: _namespace, ...metadata } = object.metadata;
  return { ...object, metadata: { ...metadata } };
}
