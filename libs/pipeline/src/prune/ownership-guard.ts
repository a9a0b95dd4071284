import { appliedOwnerAnnotation, ownerAnnotation, groupOf, type KubernetesManifest } from '@tidemark/contracts';
import { allowPrune, describeEntry, keep, type PruneCandidate, type PruneGuard, type PruneVerdict } from './guards';
import { inventoryId } from '../render/tracking';

/**
 * ownershipGuard lets Tidemark delete only what it applied for the very Git object asking:
 * the live object must carry the owner annotation naming that object, and Tidemark's field
 * manager must own that annotation through an apply (not through a status write), and Tidemark's
 * own status record of the last run must name the object (with the uid it had at apply, when
 * recorded). A field manager's name is anyone's to choose, so the record is the proof that
 * Tidemark applied it. So a name written into a CR's status, an annotation applied by someone
 * else under Tidemark's manager name, or an object another source applied last, is never deleted.
 */
export const ownershipGuard: PruneGuard = {
  name: 'ownership',
  check: checkOwnership,
};

/** checkOwnership is the guard's check, synchronous. */
export function checkOwnership(candidate: PruneCandidate): PruneVerdict {
  const what = describeEntry(candidate.entry);
  const annotated = candidate.live.metadata.annotations?.[ownerAnnotation];
  if (annotated === undefined) {
    return keep(`${what} carries no ${ownerAnnotation} annotation, so Tidemark did not apply it for ${candidate.owner}; it is left in place.`);
  }
  if (annotated !== candidate.owner) {
    return keep(`${what} is owned by ${annotated}, not by ${candidate.owner}; it is left in place.`);
  }
  if (!ownsOwnerAnnotation(candidate.live.metadata.managedFields, candidate.fieldManager)) {
    return keep(`${what} names ${candidate.owner} as its owner, but Tidemark's field manager ${candidate.fieldManager} did not apply that annotation; it is left in place.`);
  }
  return checkRecorded(candidate, what);
}

/** checkRecorded: the annotation and its field manager can be forged by anyone who may patch the object; Tidemark's own record cannot. */
function checkRecorded(candidate: PruneCandidate, what: string): PruneVerdict {
  const recorded = recordNames(candidate.context.record, candidate.live);
  if (!recorded.named) {
    return keep(`${what} names ${candidate.owner} as its owner, but Tidemark's own record of what it applied for ${candidate.owner} does not list it; it is left in place.`);
  }
  const uid = candidate.live.metadata.uid;
  if (recorded.uids.length > 0 && (typeof uid !== 'string' || !recorded.uids.includes(uid))) {
    return keep(`${what} is not the object Tidemark applied for ${candidate.owner}: its uid differs from the one recorded at apply; it is left in place.`);
  }
  return allowPrune;
}

/** ownsOwnerAnnotation tells whether an Apply entry of the field manager owns the owner annotation (contracts' appliedOwnerAnnotation). */
export function ownsOwnerAnnotation(managedFields: unknown, fieldManager: string): boolean {
  return appliedOwnerAnnotation(managedFields, fieldManager);
}

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
