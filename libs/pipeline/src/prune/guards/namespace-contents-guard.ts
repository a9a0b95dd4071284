import { foreignObjectsIn } from '@tidemark/cluster';
import { groupOf } from '@tidemark/contracts';
import { allowPrune, keep, pruneAnnotation, pruneOptIn, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * namespaceContentsGuard never deletes a Namespace that holds objects Tidemark did not put there
 * (deleting it deletes them), nor one holding kinds its identity may not list (what it cannot see
 * may be someone's), unless the Namespace opts in with tidemark.dev/prune: "true".
 */
export const namespaceContentsGuard: PruneGuard = {
  name: 'namespace-contents',
  async check({ live, context }: PruneCandidate): Promise<PruneVerdict> {
    if (live.kind !== 'Namespace' || groupOf(live.apiVersion) !== '' || pruneOptIn(live) === 'true') return allowPrune;
    const { foreign, unlistable } = await foreignObjectsIn(context.connection, live.metadata.name);
    if (foreign.length === 0 && unlistable.length > 0) {
      return keep(`Namespace ${live.metadata.name} may hold objects Tidemark cannot see: its identity may not list ${unlistable.join(', ')} there, ` +
        `and deleting the Namespace would delete them, so it is orphaned (left in the cluster). Grant list on them, or annotate the Namespace ${pruneAnnotation}: "true".`);
    }
    if (foreign.length === 0) return allowPrune;
    return keep(`Namespace ${live.metadata.name} holds objects Tidemark did not put there (${foreign.join(', ')}${foreign.length >= 5 ? ', …' : ''}); ` +
      `deleting it would delete them, so it is orphaned (left in the cluster). Move or delete them, or annotate the Namespace ${pruneAnnotation}: "true".`);
  },
};
