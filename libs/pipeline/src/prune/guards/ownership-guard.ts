import { appliedOwnerAnnotation, ownerAnnotation } from '@tidemark/contracts';
import { recordNames } from './applied-record';
import { allowPrune, describeEntry, keep, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

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
