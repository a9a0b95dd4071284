import { groupOf, type KubernetesManifest } from '@tidemark/contracts';
import { inventoryId } from '../../render/stage-render';

/**
 * RecordMatch is what Tidemark's own status record says of a live object: whether the last run
 * it recorded applied that object (the record's own object, an inventory entry or an applied
 * resource), and the uids it saw that object carry at apply time (none when it kept none).
 */
export type RecordMatch = { named: false } | { named: true; uids: string[] };

interface NamedObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: unknown;
}

/**
 * recordNames looks the live object up in the run's status record. The record comes from Redis,
 * so it is read as hostile input: only well-formed entries count, and nothing in it is trusted
 * beyond "this object was named".
 */
export function recordNames(record: unknown, live: KubernetesManifest): RecordMatch {
  if (!isObject(record)) return { named: false };
  const wanted = identity(live);
  const named = [record, ...arrayOf(record.inventory), ...arrayOf(record.resources)].filter(isNamedObject)
    .filter((entry) => sameObject({ ...entry, namespace: entry.namespace ?? '' }, wanted));
  if (named.length === 0) return { named: false };
  const uids = new Set<string>();
  for (const entry of named) if (typeof entry.uid === 'string') uids.add(entry.uid);
  const versions = isObject(record.appliedVersions) ? Object.entries(record.appliedVersions) : [];
  for (const [id, version] of versions) {
    if (id === inventoryId(wanted) && isObject(version) && typeof version.uid === 'string') uids.add(version.uid);
  }
  return { named: true, uids: [...uids] };
}

function identity(live: KubernetesManifest): Required<Omit<NamedObject, 'uid'>> {
  return { apiVersion: live.apiVersion, kind: live.kind, namespace: live.metadata.namespace ?? '', name: live.metadata.name };
}

/** sameObject compares by group, not version; a cluster-scoped live object matches whatever namespace a render wrote on it. */
function sameObject(entry: NamedObject & { namespace: string }, live: NamedObject & { namespace: string }): boolean {
  return groupOf(entry.apiVersion) === groupOf(live.apiVersion) && entry.kind === live.kind && entry.name === live.name
    && (live.namespace === '' || entry.namespace === live.namespace);
}

function isNamedObject(value: unknown): value is NamedObject {
  if (!isObject(value)) return false;
  const { apiVersion, kind, name } = value;
  const namespace = value.namespace ?? '';
  return typeof apiVersion === 'string' && typeof kind === 'string' && typeof name === 'string' && name !== '' && typeof namespace === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
