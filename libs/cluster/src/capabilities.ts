import type { ClusterCapabilities } from '@tidemark/contracts';
import { ApiError } from './api-error';
import type { ClusterConnection } from './connection';

// A render waits for this; a cluster that does not answer in time fails the unit's render, not the poll.
const discoveryTimeoutMs = 10_000;

interface VersionInfo {
  gitVersion?: string;
  major?: string;
  minor?: string;
  emulationMajor?: string;
  emulationMinor?: string;
}

interface GroupList {
  groups?: Array<{ name: string; versions?: Array<{ groupVersion: string }> }>;
}

interface ResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

/**
 * readCapabilities asks a cluster's discovery what Helm's `.Capabilities` hold after `helm install`
 * there: the server version and every group/version with its kinds (as helm's GetVersionSet lists
 * them), and which kinds are cluster-scoped. A group-version that fails to answer (an aggregated
 * API whose backend is down) is left out, as kubectl and helm leave it out.
 */
export async function readCapabilities(connection: ClusterConnection): Promise<ClusterCapabilities> {
  const { client } = connection;
  const [version, core, groups] = await Promise.all([
    client.request<VersionInfo>({ method: 'GET', path: '/version', what: 'read the server version', timeoutMs: discoveryTimeoutMs }),
    client.request<{ versions?: string[] }>({ method: 'GET', path: '/api', what: 'discover the core API', timeoutMs: discoveryTimeoutMs }),
    client.request<GroupList>({ method: 'GET', path: '/apis', what: 'discover API groups', timeoutMs: discoveryTimeoutMs }),
  ]);
  const groupVersions = [...(core.versions ?? []), ...(groups.groups ?? []).flatMap((group) => (group.versions ?? []).map((entry) => entry.groupVersion))];
  const apiVersions = new Set<string>();
  const clusterScoped = new Set<string>();
  await Promise.all(groupVersions.map(async (groupVersion) => {
    const path = groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
    const list = await client.request<ResourceList>({ method: 'GET', path, what: `discover ${groupVersion}`, timeoutMs: discoveryTimeoutMs }).catch((error: unknown) => {
      if (error instanceof ApiError) return undefined;
      throw error;
    });
    if (!list) return;
    apiVersions.add(groupVersion);
    const group = groupVersion.includes('/') ? groupVersion.slice(0, groupVersion.indexOf('/')) : '';
    for (const resource of list.resources ?? []) {
      if (resource.name.includes('/')) continue;
      apiVersions.add(`${groupVersion}/${resource.kind}`);
      if (!resource.namespaced) clusterScoped.add(`${group}/${resource.kind}`);
    }
  }));
  return { kubeVersion: kubeVersionOf(version, connection.name), apiVersions: [...apiVersions].sort(), clusterScopedKinds: [...clusterScoped].sort() };
}

/**
 * kubeVersionOf is the server's version as helm reads it (gitVersion), except for a server built
 * without a release version (`v0.0.0-master+…`, as a source build reports): then the version it
 * emulates, or its major.minor, since no chart's kubeVersion would accept 0.0.0.
 */
export function kubeVersionOf(version: VersionInfo, cluster: string): string {
  const { gitVersion } = version;
  if (gitVersion && !gitVersion.startsWith('v0.0.0')) return gitVersion;
  const numeric = (text: string | undefined) => /^\d+/.exec(text ?? '')?.[0];
  const major = numeric(version.emulationMajor) ?? numeric(version.major);
  const minor = numeric(version.emulationMinor) ?? numeric(version.minor);
  if (major && minor) return `v${major}.${minor}.0`;
  if (gitVersion) return gitVersion;
  throw new Error(`cluster ${cluster}: /version gave no version`);
}
