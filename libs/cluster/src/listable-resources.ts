import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';

interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** ListableResource is one kind discovery serves that can be listed, at its group's preferred version. */
export interface ListableResource {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  groupVersion: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

/** Objects the cluster itself derives from others or writes by the thousand: never applied from Git. */
const derivedKinds = new Set(['Event', 'Endpoints', 'EndpointSlice', 'Lease', 'PodMetrics']);

/**
 * listableResources walks discovery: every group's preferred version, the kinds that can be
 * listed (no subresources, nothing the cluster derives). A group whose API service is down (503)
 * or gone (404) is left out.
 */
export async function listableResources(connection: ClusterConnection): Promise<ListableResource[]> {
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
      if (resource.name.includes('/') || derivedKinds.has(resource.kind)) continue;
      if (resource.verbs && !resource.verbs.includes('list')) continue;
      resources.push({ base, groupVersion, plural: resource.name, kind: resource.kind, namespaced: resource.namespaced });
    }
  }
  return resources;
}
