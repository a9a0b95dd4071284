import type { KubernetesManifest } from '@tidemark/contracts';
import { ApiError } from './api-error';
import type { ClusterConnection } from './connection';
import { getObject } from './read';
import { resourcePath, type ApiResource } from './resource-path';

/** CrdVersions is what a CRD says about its versions: the one stored, and those etcd may still hold. */
export interface CrdVersions {
  group: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  storageVersion: string;
  storedVersions: string[];
}

type Crd = { spec: { group: string; scope: string; names: { plural: string; kind: string }; versions: { name: string; storage: boolean }[] }; status?: { storedVersions?: string[] } };

/** crdVersions reads a CRD's storage version and status.storedVersions; undefined when there is no such CRD. */
export async function crdVersions(connection: ClusterConnection, crdName: string): Promise<CrdVersions | undefined> {
  const crd = (await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName })) as (KubernetesManifest & Crd) | undefined;
  if (!crd) return undefined;
  const storage = crd.spec.versions.find((version) => version.storage)?.name ?? '';
  return {
    group: crd.spec.group,
    plural: crd.spec.names.plural,
    kind: crd.spec.names.kind,
    namespaced: crd.spec.scope === 'Namespaced',
    storageVersion: storage,
    storedVersions: crd.status?.storedVersions ?? [],
  };
}

/** listPage reads one page of every object of a resource, in all namespaces, in the resource's version. */
export async function listPage(connection: ClusterConnection, resource: ApiResource, limit: number, continueToken?: string): Promise<{ items: KubernetesManifest[]; continueToken?: string; remainingItemCount?: number }> {
  const page = await connection.client.request<{ items: Omit<KubernetesManifest, 'apiVersion' | 'kind'>[]; metadata?: { continue?: string; remainingItemCount?: number } }>({
    method: 'GET',
    path: resourcePath(resource, undefined),
    query: { limit, continue: continueToken },
    what: `list ${resource.kind} in all namespaces on ${connection.name}`,
  });
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  const items = page.items.map((item) => ({ ...item, apiVersion, kind: resource.kind }) as KubernetesManifest);
  return {
    items,
    ...(page.metadata?.continue ? { continueToken: page.metadata.continue } : {}),
    ...(page.metadata?.remainingItemCount !== undefined ? { remainingItemCount: page.metadata.remainingItemCount } : {}),
  };
}

/**
 * rewriteObject writes an object back unchanged (a PUT at its resourceVersion), so the API server
 * stores it again in the current storage version. It reports `gone` for an object deleted since it
 * was read and `changed` for one written since: that write stored it in the current version too.
 */
export async function rewriteObject(connection: ClusterConnection, resource: ApiResource, object: KubernetesManifest): Promise<'rewritten' | 'changed' | 'gone'> {
  try {
    await connection.client.request({
      method: 'PUT',
      path: resourcePath(resource, object.metadata.namespace, object.metadata.name),
      body: object,
      what: `rewrite ${resource.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name} in ${resource.version} on ${connection.name}`,
    });
    return 'rewritten';
  } catch (error) {
    if (error instanceof ApiError && error.isConflict) return 'changed';
    if (error instanceof ApiError && error.isNotFound) return 'gone';
    throw error;
  }
}

/**
 * setStoredVersions replaces a CRD's status.storedVersions (after every object was rewritten in
 * the storage version), so older versions can later be removed from the CRD.
 */
export async function setStoredVersions(connection: ClusterConnection, crdName: string, storedVersions: string[]): Promise<void> {
  await connection.client.request({
    method: 'PATCH',
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(crdName)}/status`,
    body: { status: { storedVersions } },
    contentType: 'application/merge-patch+json',
    what: `set storedVersions of CRD ${crdName} to ${storedVersions.join(', ')} on ${connection.name}`,
  });
}
