import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';

interface CrdSpec {
  group?: string;
  names?: { plural?: string };
  scope?: string;
  versions?: { name: string; served?: boolean; storage?: boolean }[];
}

/**
 * countCustomResources tells how many custom resources of a CRD exist, cluster-wide, reading at
 * most `limit` of them (one page): enough to say "there are some, and this many at least".
 */
export async function countCustomResources(connection: ClusterConnection, crd: KubernetesManifest, limit = 100): Promise<{ count: number; more: boolean; examples: string[] }> {
  const path = collectionPath((crd.spec ?? {}) as CrdSpec);
  if (!path) return { count: 0, more: false, examples: [] };
  try {
    const list = await connection.client.request<{ metadata?: { continue?: string }; items?: KubernetesManifest[] }>({
      method: 'GET', path, query: { limit }, what: `list the custom resources of ${crd.metadata.name} on ${connection.name}`,
    });
    const items = list.items ?? [];
    const examples = items.slice(0, 3).map((item) => `${item.metadata.namespace ? `${item.metadata.namespace}/` : ''}${item.metadata.name}`);
    return { count: items.length, more: Boolean(list.metadata?.continue), examples };
  } catch (error) {
    // Not served (not Established, or being deleted): nothing can be listed, so nothing is lost.
    if (error instanceof ApiError && error.isNotFound) return { count: 0, more: false, examples: [] };
    throw error;
  }
}

/** collectionPath is where a CRD's objects are listed, cluster-wide, at its storage version. */
function collectionPath(spec: CrdSpec): string | undefined {
  const version = spec.versions?.find((entry) => entry.storage)?.name ?? spec.versions?.find((entry) => entry.served)?.name;
  if (!spec.group || !spec.names?.plural || !version) return undefined;
  return `/apis/${spec.group}/${version}/${spec.names.plural}`;
}
