import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { resourcePath } from './resource-path';

/**
 * removeFinalizer takes one finalizer off a live object with a JSON patch that first tests the
 * entry is still where it was read, so a concurrent change makes the patch fail, not misfire.
 * A missing object or finalizer is success.
 */
export async function removeFinalizer(connection: ClusterConnection, live: KubernetesManifest, finalizer: string): Promise<void> {
  const index = live.metadata.finalizers?.indexOf(finalizer) ?? -1;
  if (index < 0) return;
  const resource = await connection.discovery.resourceFor(live.apiVersion, live.kind);
  try {
    await connection.client.request({
      method: 'PATCH',
      path: resourcePath(resource, live.metadata.namespace, live.metadata.name),
      body: [
        { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
        { op: 'remove', path: `/metadata/finalizers/${index}` },
      ],
      contentType: 'application/json-patch+json',
      what: `remove finalizer ${finalizer} from ${live.kind} ${live.metadata.name} on ${connection.name}`,
    });
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return;
    throw error;
  }
}
