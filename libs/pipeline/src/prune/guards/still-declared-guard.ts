import { allowPrune, describeEntry, keep, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * stillDeclaredGuard never deletes a live object that a Git object still declares: an identity
 * that changed only in spelling (the namespace written out or left to the default) is the same
 * object, and deleting it to create it again would be downtime.
 */
export const stillDeclaredGuard: PruneGuard = {
  name: 'still-declared',
  async check({ entry, live, context }: PruneCandidate): Promise<PruneVerdict> {
    const declaredBy = await context.declaredBy(live);
    if (!declaredBy) return allowPrune;
    return keep(`${describeEntry(entry)} is still declared in Git by ${declaredBy}, so it is not deleted (the same object, spelt differently).`);
  },
};
