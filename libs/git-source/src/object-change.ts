import type { RevisionIndex } from './revision-index';

/** ObjectChange is one object whose desired state differs between two revisions. */
export interface ObjectChange {
  objectKey: string;
  change: 'added' | 'changed' | 'removed';
  /** Where the object is declared (for removed objects: where it was). */
  path: string;
  /** The blob that holds it (for removed objects: the blob that held it). */
  blobOid: string;
}

/**
 * diffObjects compares two indexes on the keys an update touched. An object is `changed` when
 * its content changed, or when it became or stopped being in error (a duplicate, a broken
 * file): the worker then reads it and reports the error. Moving between files is no change.
 */
export function diffObjects(before: RevisionIndex, after: RevisionIndex, touched: Iterable<string>): ObjectChange[] {
  const changes: ObjectChange[] = [];
  for (const objectKey of [...touched].sort()) {
    const was = before.summary(objectKey);
    const now = after.summary(objectKey);
    if (!was && now) changes.push({ objectKey, change: 'added', path: now.path, blobOid: now.blobOid });
    else if (was && !now) changes.push({ objectKey, change: 'removed', path: was.path, blobOid: was.blobOid });
    else if (was && now && was.signature !== now.signature) changes.push({ objectKey, change: 'changed', path: now.path, blobOid: now.blobOid });
  }
  return changes;
}
