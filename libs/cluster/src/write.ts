import type { KubernetesManifest } from '@tidemark/contracts';
import { ApiError } from './api-error';
import { describe } from './apply';
import type { ClusterConnection } from './connection';
import { resourcePath } from './resource-path';

/**
 * createObject creates an object only if it does not exist yet (POST), for state several
 * replicas race to create: `exists` means another one won, read theirs.
 */
export async function createObject(connection: ClusterConnection, object: KubernetesManifest): Promise<'created' | 'exists'> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  try {
    await connection.client.request({ method: 'POST', path: resourcePath(resource, object.metadata.namespace), body: object, what: `create ${describe(object)} on ${connection.name}` });
    return 'created';
  } catch (error) {
    if (error instanceof ApiError && error.isConflict) return 'exists';
    throw error;
  }
}

/**
 * replaceObject writes a whole object at the resourceVersion it carries (PUT): `conflict` means
 * someone wrote it since it was read, `gone` that it was deleted.
 */
export async function replaceObject(connection: ClusterConnection, object: KubernetesManifest): Promise<'replaced' | 'conflict' | 'gone'> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  try {
    await connection.client.request({ method: 'PUT', path: resourcePath(resource, object.metadata.namespace, object.metadata.name), body: object, what: `replace ${describe(object)} on ${connection.name}` });
    return 'replaced';
  } catch (error) {
    if (error instanceof ApiError && error.isConflict) return 'conflict';
    if (error instanceof ApiError && error.isNotFound) return 'gone';
    throw error;
  }
}
