import { ownerLabel, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { listableResources, type ListableResource } from './listable-resources';

/** OwnerLabelledOptions bound one sweep. */
export interface OwnerLabelledOptions {
  /** The most objects kept; the sweep stops there and says it was cut short. @defaultValue 20_000 */
  maxObjects?: number;
  /** Objects per list page. @defaultValue 100 */
  pageSize?: number;
  /** The most bytes of one page's body. @defaultValue 16 MiB */
  maxPageBytes?: number;
}

/** OwnerLabelled is what a sweep found: the labelled objects, kinds it may not list, and whether it stopped at the bound. */
export interface OwnerLabelled {
  objects: KubernetesManifest[];
  /** `<plural>.<group>` of kinds the connection may not list (403): their objects are unknown. */
  unlistable: string[];
  truncated: boolean;
  /** How many kinds were listed (one request each, more when paged). */
  kindsListed: number;
}

/**
 * listOwnerLabelled lists every object in the cluster that carries Tidemark's owner label, in
 * every kind discovery serves: one label-selected list per kind (in all namespaces), page by page.
 * The label only finds candidates; what they prove is for the caller to check (the annotation).
 */
export async function listOwnerLabelled(connection: ClusterConnection, options: OwnerLabelledOptions = {}): Promise<OwnerLabelled> {
  const found: OwnerLabelled = { objects: [], unlistable: [], truncated: false, kindsListed: 0 };
  const bounds = { maxObjects: options.maxObjects ?? 20_000, pageSize: options.pageSize ?? 100, maxPageBytes: options.maxPageBytes ?? 16 * 1024 * 1024 };
  const resources = await listableResources(connection);
  // A few kinds at a time: one after another, a sweep of ~60 kinds held a start's first poll for their round trips.
  // Each kind's objects stay in their own list, joined in discovery's order; the bound counts them all.
  const perKind: KubernetesManifest[][] = resources.map(() => []);
  const held = { count: 0 };
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < resources.length; index = next++) {
      if (held.count >= bounds.maxObjects) {
        found.truncated = true;
        return;
      }
      const resource = resources[index]!;
      try {
        found.kindsListed += 1;
        await collect(connection, resource, { objects: perKind[index]!, held, found }, bounds);
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) found.unlistable.push(`${resource.plural}${resource.base === '/api/v1' ? '' : `.${resource.groupVersion.split('/')[0]}`}`);
        else if (!(error instanceof ApiError && (error.status === 404 || error.status === 405))) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(sweepLanes, resources.length) }, lane));
  found.objects = perKind.flat().slice(0, bounds.maxObjects);
  return found;
}

/** How many kinds a sweep lists at once. */
const sweepLanes = 6;

async function collect(connection: ClusterConnection, resource: ListableResource, into: { objects: KubernetesManifest[]; held: { count: number }; found: OwnerLabelled }, bounds: Required<OwnerLabelledOptions>): Promise<void> {
  let token: string | undefined;
  do {
    const list = await connection.client.request<{ items?: Omit<KubernetesManifest, 'apiVersion' | 'kind'>[]; metadata?: { continue?: string } }>({
      method: 'GET', path: `${resource.base}/${resource.plural}`,
      query: { labelSelector: ownerLabel, limit: bounds.pageSize, continue: token },
      maxBytes: bounds.maxPageBytes,
      what: `list ${resource.plural} labelled ${ownerLabel} on ${connection.name}`,
    });
    // A page cut at maxPageBytes does not parse: say so rather than read it as empty.
    if (!Array.isArray(list.items)) throw new Error(`list ${resource.plural} labelled ${ownerLabel} on ${connection.name}: the answer holds no item list (a page over ${bounds.maxPageBytes} bytes is cut short); lower pageSize.`);
    for (const item of list.items) {
      if (into.held.count >= bounds.maxObjects) {
        into.found.truncated = true;
        return;
      }
      // List items come without apiVersion and kind; put them back so items are whole objects.
      into.objects.push({ ...item, apiVersion: resource.groupVersion, kind: resource.kind } as KubernetesManifest);
      into.held.count += 1;
    }
    token = list.metadata?.continue || undefined;
  } while (token !== undefined);
}
