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

/**
 * isOwnEcho tells whether a change is only the echo of Tidemark's own write: no other manager's
 * entry is as new as Tidemark's newest. managedFields times have whole seconds, so an edit in
 * the same second as Tidemark's write ties, and a tie counts as someone else's change: the cost
 * is one reconcile that finds nothing to do, never a missed edit.
 */
export function isOwnEcho(managedFields: unknown, ownManagers: ReadonlySet<string>): boolean {
  const entries = newestFirst(managedFields);
  const newestOwn = entries.find((entry) => ownManagers.has(entry.manager ?? ''));
  if (!newestOwn?.time) return false;
  return !entries.some((entry) => !ownManagers.has(entry.manager ?? '') && (entry.time === undefined || entry.time >= newestOwn.time!));
}
