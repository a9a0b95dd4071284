import { describeEntry, keep, allowPrune, pruneAnnotation, pruneOptIn, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * pruneAnnotationGuard keeps any object annotated tidemark.dev/prune: "false", as Flux's
 * `kustomize.toolkit.fluxcd.io/prune: disabled` and Argo CD's `Prune=false` do.
 */
export const pruneAnnotationGuard: PruneGuard = {
  name: 'prune-annotation',
  check(candidate: PruneCandidate): PruneVerdict {
    if (pruneOptIn(candidate.live) !== 'false') return allowPrune;
    return keep(`${describeEntry(candidate.entry)} is annotated ${pruneAnnotation}: "false", so it is orphaned (left in the cluster), not deleted.`);
  },
};
