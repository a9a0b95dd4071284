import { newestFirst, type ObjectStatus } from '@tidemark/contracts';

/** WatchedKind is a kind Tidemark owns objects of on a cluster. */
export interface WatchedKind {
  apiVersion: string;
  kind: string;
}

/** kindId is a watched kind's id, the key of the kind maps below and of the owned watches: `apiVersion|kind`. */
export function kindId(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

/** managedKinds lists the kinds of every object and inventory entry in a cluster's status records. */
export function managedKinds(records: Iterable<ObjectStatus>): Map<string, WatchedKind> {
  const kinds = new Map<string, WatchedKind>();
  for (const record of records) addManagedKinds(kinds, record);
  return kinds;
}

/** addManagedKinds adds one record's kinds (its own and its inventory's), for a reader that sees records one by one. */
export function addManagedKinds(kinds: Map<string, WatchedKind>, record: ObjectStatus): void {
  const add = (apiVersion: string, kind: string) => {
    if (apiVersion && kind) kinds.set(kindId(apiVersion, kind), { apiVersion, kind });
  };
  add(record.apiVersion, record.kind);
  for (const entry of record.inventory) add(entry.apiVersion, entry.kind);
}

/**
 * isOwnEcho tells whether a change is only the echo of Tidemark's own write: no other manager's
 * entry is as new as Tidemark's newest. managedFields times have whole seconds, so an edit in
 * the same second as Tidemark's write ties, and a tie counts as someone else's change: the cost
 * is one reconcile that finds nothing to do, never a missed edit. With `statusIsEcho`, a write
 * to the status subresource (a controller reporting, never a hand edit of what Tidemark applies)
 * counts as no change either: a listed object is looked at only for an edit made while unwatched.
 */
export function isOwnEcho(managedFields: unknown, ownManagers: ReadonlySet<string>, options: { statusIsEcho?: boolean } = {}): boolean {
  const entries = newestFirst(managedFields);
  const newestOwn = entries.find((entry) => ownManagers.has(entry.manager ?? ''));
  if (!newestOwn?.time) return false;
  const counts = (entry: (typeof entries)[number]) => !ownManagers.has(entry.manager ?? '') && !(options.statusIsEcho && entry.subresource === 'status');
  return !entries.some((entry) => counts(entry) && (entry.time === undefined || entry.time >= newestOwn.time!));
}
