import type { ObjectStatus } from '@tidemark/contracts';
import { kindId } from './managed-kinds';

/** ListedKind is what one completed list of a kind showed (namespace/name keys), and when that list started. */
export interface ListedKind {
  keys: ReadonlySet<string>;
  /** ms since the epoch. */
  since: number;
}

/** listedKey is the key a list keeps an object under: namespace/name ('' for a cluster-scoped object's namespace). */
export function listedKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * missingAtList tells whether a record's object, or one its last successful run applied, is absent
 * from a completed list of its kind: it was deleted while no watch was open on the kind (before the
 * kind's first list after a start, or while it listed again), so no DELETED event will ever say so.
 * A record written after the list began is not judged: the list may predate that apply.
 */
export function missingAtList(record: ObjectStatus, listed: ReadonlyMap<string, ListedKind>): boolean {
  const written = Date.parse(record.updatedAt);
  const absent = (object: { apiVersion: string; kind: string; namespace: string; name: string }) => {
    const list = listed.get(kindId(object.apiVersion, object.kind));
    return list !== undefined && written < list.since && !list.keys.has(listedKey(object.namespace, object.name));
  };
  if (record.lastAppliedRevision && record.apiVersion && record.kind && absent(record)) return true;
  return (record.resources ?? []).some(absent);
}
