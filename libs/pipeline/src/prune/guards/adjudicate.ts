import { allowPrune, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';
import { pruneAnnotationGuard } from './prune-annotation-guard';
import { builtinCrdGuard } from './builtin-crd-guard';
import { stillDeclaredGuard } from './still-declared-guard';
import { crdInstancesGuard } from './crd-instances-guard';
import { namespaceContentsGuard } from './namespace-contents-guard';
import { ownershipGuard } from './ownership-guard';
import { ownSourceGuard } from './own-source-guard';

/**
 * defaultPruneGuards are the guards every delete passes, in order: ownership first (only what
 * Tidemark applied for this very Git object is Tidemark's to delete), then the cheap ones that
 * read only the object, then those that ask Git, then those that list the cluster.
 */
export const defaultPruneGuards: readonly PruneGuard[] = Object.freeze([
  ownershipGuard, pruneAnnotationGuard, ownSourceGuard, builtinCrdGuard, stillDeclaredGuard, crdInstancesGuard, namespaceContentsGuard,
]);

/** adjudicatePrune asks each guard in turn; the first refusal wins and names its guard. */
export async function adjudicatePrune(candidate: PruneCandidate, guards: readonly PruneGuard[]): Promise<PruneVerdict & { guard?: string }> {
  for (const guard of guards) {
    const verdict = await guard.check(candidate);
    if (!verdict.allowed) return { ...verdict, guard: guard.name };
  }
  return allowPrune;
}
