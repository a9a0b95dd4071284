import { newestFirst, type ObjectStatus } from '@tidemark/contracts';

/** WatchedKind is a kind Tidemark owns objects of on a cluster. */
export interface WatchedKind {
  apiVersion: string;
  kind: string;
}

/** managedKinds lists the kinds of every object and inventory entry in a cluster's status records. */
export function managedKinds(records: readonly ObjectStatus[]): Map<string, WatchedKind> {
  const kinds = new Map<string, WatchedKind>();
  const add = (apiVersion: string, kind: string) => {
    if (apiVersion && kind) kinds.set(`${apiVersion}|${kind}`, { apiVersion, kind });
  };
  for (const record of records) {
    add(record.apiVersion, record.kind);
    for (const entry of record.inventory) add(entry.apiVersion, entry.kind);
  }
  return kinds;
}

/** ownerOf reads the Git object that applied an object from its tidemark.dev/owner annotation. */
export function ownerOf(annotations: Record<string, string> | undefined): { source: string; objectKey: string } | undefined {
  const owner = annotations?.['tidemark.dev/owner'];
  const colon = owner?.indexOf(':') ?? -1;
  if (!owner || colon <= 0) return undefined;
  return { source: owner.slice(0, colon), objectKey: owner.slice(colon + 1) };
}

/**
 * lastWriter is the manager of the newest managedFields entry: when it is Tidemark itself, the
 * change is the echo of its own apply and wakes nothing.
 */
export function lastWriter(managedFields: unknown): string | undefined {
  return newestFirst(managedFields)[0]?.manager;
}
