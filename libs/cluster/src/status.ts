import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { applyToResource } from './apply';

/**
 * applyStatus server-side applies `status` to an object's /status subresource. It returns
 * false, writing nothing, when the kind has no status subresource (for instance the original
 * ConfigWatcher CRD), so the caller can keep status elsewhere and say why.
 */
export async function applyStatus(connection: ClusterConnection, object: KubernetesManifest, status: Record<string, unknown>): Promise<boolean> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  if (!resource.hasStatusSubresource) return false;
  const patch: KubernetesManifest = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: object.metadata.name, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}) },
    status,
  };
  await applyToResource(connection, resource, patch, { subresource: 'status' });
  return true;
}
