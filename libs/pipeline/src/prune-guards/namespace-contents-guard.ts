import { foreignObjectsIn } from '@tidemark/cluster';
import { groupOf } from '@tidemark/contracts';
import { allowPrune, keep, pruneAnnotation, pruneOptIn, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * namespaceContentsGuard never deletes a Namespace that holds objects Tidemark did not put there
 * (deleting it deletes them), unless the Namespace opts in with tidemark.dev/prune: "true".
 */
export const namespaceContentsGuard: PruneGuard = {
  name: 'namespace-contents',
  async check({ live, context }: PruneCandidate): Promise<PruneVerdict> {
    if (live.kind !== 'Namespace' || groupOf(live.apiVersion) !== '' || pruneOptIn(live) === 'true') return allowPrune;
    const foreign = await foreignObjectsIn(context.connection, live.metadata.name);
    if (foreign.length === 0) return allowPrune;
    return keep(`Namespace ${live.metadata.name} holds objects Tidemark did not put there (${foreign.join(', ')}${foreign.length >= 5 ? ', …' : ''}); ` +
      `deleting it would delete them, so it is orphaned (left in the cluster). Move or delete them, or annotate the Namespace ${pruneAnnotation}: "true".`);
  },
};
