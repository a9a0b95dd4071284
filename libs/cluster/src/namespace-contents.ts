import { ownerAnnotation, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { listableResources, type ListableResource } from './listable-resources';

/** Objects the cluster itself puts in every namespace: never the user's (listableResources leaves out what it derives). */
const clusterMadeNames = new Set(['ConfigMap/kube-root-ca.crt', 'ServiceAccount/default']);

/**
 * NamespaceContents is what a namespace holds that Tidemark did not put there: up to `limit`
 * foreign objects, and the kinds (plural names) its identity may not list, whose objects it
 * therefore cannot know. Either one means deleting the namespace may delete what is not Tidemark's.
 */
export interface NamespaceContents {
  foreign: string[];
  unlistable: string[];
}

/** Objects read per list request; a namespace's every object is read, page after page. */
const pageSize = 100;

/**
 * foreignObjectsIn lists up to `limit` objects in a namespace that Tidemark did not put there:
 * no owner annotation and no ownerReference (an owned object goes with its owner). Events,
 * endpoints and what the cluster creates in every namespace do not count. A kind the identity may
 * not list (403) is not "empty": it is reported as unlistable, so the caller keeps the namespace.
 * `isOurs` replaces the rule of what is Tidemark's (uninstall counts what it applied as foreign).
 */
export async function foreignObjectsIn(connection: ClusterConnection, namespace: string, limit = 5, isOurs: (item: Pick<KubernetesManifest, 'metadata'>) => boolean = isTidemarks): Promise<NamespaceContents> {
  const contents: NamespaceContents = { foreign: [], unlistable: [] };
  for (const resource of await namespacedListableResources(connection)) {
    if (contents.foreign.length >= limit) break;
    try {
      await collectForeign(connection, { namespace, resource, limit, isOurs }, contents);
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) contents.unlistable.push(resource.plural);
      else if (!(error instanceof ApiError && (error.status === 404 || error.status === 405))) throw error;
    }
  }
  return contents;
}

/** collectForeign reads one kind's objects in the namespace, every page (continue tokens), until `limit` foreign ones are found. */
async function collectForeign(connection: ClusterConnection, scan: { namespace: string; resource: ListableResource; limit: number; isOurs: (item: Pick<KubernetesManifest, 'metadata'>) => boolean }, contents: NamespaceContents): Promise<void> {
  const { namespace, resource, limit, isOurs } = scan;
  let token: string | undefined;
  do {
    const list = await connection.client.request<{ items?: Pick<KubernetesManifest, 'metadata'>[]; metadata?: { continue?: string } }>({
      method: 'GET', path: `${resource.base}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`, query: { limit: pageSize, continue: token },
      what: `list ${resource.plural} in ${namespace} on ${connection.name}`,
    });
    for (const item of list.items ?? []) {
      if (isOurs(item) || clusterMadeNames.has(`${resource.kind}/${item.metadata.name}`)) continue;
      contents.foreign.push(`${resource.kind} ${namespace}/${item.metadata.name}`);
      if (contents.foreign.length >= limit) return;
    }
    token = list.metadata?.continue || undefined;
  } while (token !== undefined);
}

function isTidemarks(item: Pick<KubernetesManifest, 'metadata'>): boolean {
  const references = item.metadata.ownerReferences;
  return Boolean(item.metadata.annotations?.[ownerAnnotation]) || (Array.isArray(references) && references.length > 0);
}

/** namespacedListableResources are the namespaced kinds discovery serves that can be listed. */
async function namespacedListableResources(connection: ClusterConnection): Promise<ListableResource[]> {
  return (await listableResources(connection)).filter((resource) => resource.namespaced);
}
