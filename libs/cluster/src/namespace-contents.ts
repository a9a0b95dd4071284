import { ownerAnnotation, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';

interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** Objects the cluster itself puts in every namespace, or derives from others: never the user's. */
const derivedKinds = new Set(['Event', 'Endpoints', 'EndpointSlice', 'Lease', 'PodMetrics']);
const clusterMadeNames = new Set(['ConfigMap/kube-root-ca.crt', 'ServiceAccount/default']);

/**
 * foreignObjectsIn lists up to `limit` objects in a namespace that Tidemark did not put there:
 * no owner annotation and no ownerReference (an owned object goes with its owner). Events,
 * endpoints and what the cluster creates in every namespace do not count.
 */
export async function foreignObjectsIn(connection: ClusterConnection, namespace: string, limit = 5): Promise<string[]> {
  const found: string[] = [];
  for (const resource of await namespacedListableResources(connection)) {
    if (found.length >= limit) break;
    let list;
    try {
      list = await connection.client.request<{ items?: Pick<KubernetesManifest, 'metadata'>[] }>({
        method: 'GET', path: `${resource.base}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`, query: { limit: 100 },
        what: `list ${resource.plural} in ${namespace} on ${connection.name}`,
      });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 405 || error.status === 403)) continue;
      throw error;
    }
    for (const item of list.items ?? []) {
      if (isTidemarks(item) || clusterMadeNames.has(`${resource.kind}/${item.metadata.name}`)) continue;
      found.push(`${resource.kind} ${namespace}/${item.metadata.name}`);
      if (found.length >= limit) break;
    }
  }
  return found;
}

function isTidemarks(item: Pick<KubernetesManifest, 'metadata'>): boolean {
  const references = item.metadata.ownerReferences;
  return Boolean(item.metadata.annotations?.[ownerAnnotation]) || (Array.isArray(references) && references.length > 0);
}

interface ListableResource {
  base: string;
  plural: string;
  kind: string;
}

/** namespacedListableResources walks discovery: every group's preferred version, namespaced kinds that can be listed. */
async function namespacedListableResources(connection: ClusterConnection): Promise<ListableResource[]> {
  const groups = await connection.client.request<{ groups?: { preferredVersion?: { groupVersion: string } }[] }>({ method: 'GET', path: '/apis', what: `discover groups on ${connection.name}` });
  const groupVersions = ['v1', ...(groups.groups ?? []).map((group) => group.preferredVersion?.groupVersion).filter((value): value is string => Boolean(value))];
  const resources: ListableResource[] = [];
  for (const groupVersion of groupVersions) {
    const base = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
    let list: ResourceList;
    try {
      list = await connection.client.request<ResourceList>({ method: 'GET', path: base, what: `discover ${groupVersion} on ${connection.name}` });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 503)) continue;
      throw error;
    }
    for (const resource of list.resources) {
      if (!resource.namespaced || resource.name.includes('/') || derivedKinds.has(resource.kind)) continue;
      if (resource.verbs && !resource.verbs.includes('list')) continue;
      resources.push({ base, plural: resource.name, kind: resource.kind });
    }
  }
  return resources;
}
