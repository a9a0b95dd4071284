import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { resourcePath, type ApiResource } from './resource-path';

/** ObjectName locates one object. */
export interface ObjectName {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** getObject reads one live object; undefined when it does not exist. */
export async function getObject(connection: ClusterConnection, target: ObjectName): Promise<KubernetesManifest | undefined> {
  const resource = await connection.discovery.resourceFor(target.apiVersion, target.kind);
  return getByResource(connection, resource, target.namespace, target.name);
}

/** getByResource reads one object of an already-resolved resource. */
export async function getByResource(connection: ClusterConnection, resource: ApiResource, namespace: string | undefined, name: string): Promise<KubernetesManifest | undefined> {
  try {
    return await connection.client.request<KubernetesManifest>({
      method: 'GET',
      path: resourcePath(resource, namespace, name),
      what: `get ${resource.kind} ${namespace ? `${namespace}/` : ''}${name} on ${connection.name}`,
    });
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return undefined;
    throw error;
  }
}

/** anyLabelled answers whether any object of a kind, in every namespace, carries the labels: a list of at most one item. */
export async function anyLabelled(connection: ClusterConnection, apiVersion: string, kind: string, labels: Record<string, string>): Promise<boolean> {
  const resource = await connection.discovery.resourceFor(apiVersion, kind);
  const list = await connection.client.request<{ items?: unknown[] }>({
    method: 'GET', path: resourcePath(resource, undefined), query: { labelSelector: selectorOf(labels), limit: 1 },
    what: `look for ${selectorOf(labels)} among ${kind} on ${connection.name}`,
  });
  return (list.items?.length ?? 0) > 0;
}

function selectorOf(labels: Record<string, string>): string {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`).join(',');
}

/** listObjects lists a kind in a namespace ('' for all), optionally by label selector. */
export async function listObjects(connection: ClusterConnection, apiVersion: string, kind: string, namespace: string, labels?: Record<string, string>): Promise<KubernetesManifest[]> {
  const resource = await connection.discovery.resourceFor(apiVersion, kind);
  const labelSelector = labels ? selectorOf(labels) : undefined;
  const list = await connection.client.request<{ items: Omit<KubernetesManifest, 'apiVersion' | 'kind'>[] }>({
    method: 'GET',
    path: resourcePath(resource, namespace || undefined),
    query: { labelSelector },
    what: `list ${kind} in ${namespace || 'all namespaces'} on ${connection.name}`,
  });
  // List items come without apiVersion and kind; put them back so items are whole objects.
  return list.items.map((item) => ({ ...item, apiVersion, kind }) as KubernetesManifest);
}
