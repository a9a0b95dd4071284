import { allowPrune, describeEntry, keep, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

// The Source kind (libs/source-objects); the pipeline names it here rather than import that library.
const sourceApiVersion = 'tidemark.dev/v1alpha1';

/**
 * ownSourceGuard never lets a source delete the Source object that defines it (a Source kept in
 * its own repository, as Flux's flux-system is). Deleting it would prune everything the source
 * applied, and nothing would be left to undo the mistake from Git. It is kept, saying how to
 * delete it on purpose.
 */
export const ownSourceGuard: PruneGuard = {
  name: 'own-source',
  check({ entry, live, context }: PruneCandidate): PruneVerdict {
    if (live.apiVersion !== sourceApiVersion || live.kind !== 'Source') return allowPrune;
    if (`${live.metadata.namespace ?? 'default'}.${live.metadata.name}` !== context.source) return allowPrune;
    return keep(`${describeEntry(entry)} defines source ${context.source}, the source that would delete it, so it is orphaned, not deleted; delete it with kubectl if you mean to remove that source.`);
  },
};
