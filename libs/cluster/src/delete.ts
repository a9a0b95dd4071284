import { NotReadyError } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { resourcePath } from './resource-path';

/** ObjectIdentity is an object as the inventory knows it: by group and kind, not version. */
export interface ObjectIdentity {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** DeletePreconditions make a delete fail (409 Conflict) unless the object is still the one that was checked. */
export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * deleteObject deletes one object with background propagation. It returns 'absent' when the
 * object (or its kind) is already gone, so a replayed prune is harmless.
 */
export async function deleteObject(connection: ClusterConnection, target: ObjectIdentity, preconditions?: DeletePreconditions): Promise<'deleted' | 'absent'> {
  let resource;
  try {
    resource = await connection.discovery.resourceForGroupKind(target.group, target.kind);
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return 'absent';
    if (error instanceof NotReadyError && error.code === 'KindNotServed') return 'absent';
    throw error;
  }
  try {
    await connection.client.request({
      method: 'DELETE',
      path: resourcePath(resource, resource.namespaced ? target.namespace || undefined : undefined, target.name),
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', ...(preconditions ? { preconditions } : {}) },
      what: `delete ${target.kind} ${target.namespace ? `${target.namespace}/` : ''}${target.name} on ${connection.name}`,
    });
    return 'deleted';
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return 'absent';
    throw error;
  }
}
