import { countCustomResources } from '@tidemark/cluster';
import { allowPrune, keep, pruneAnnotation, pruneOptIn, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * crdInstancesGuard never deletes a CRD while custom resources of it exist (deleting it deletes
 * every one of them, cluster-wide), unless the CRD opts in with tidemark.dev/prune: "true".
 */
export const crdInstancesGuard: PruneGuard = {
  name: 'crd-instances',
  async check({ live, context }: PruneCandidate): Promise<PruneVerdict> {
    if (live.kind !== 'CustomResourceDefinition' || pruneOptIn(live) === 'true') return allowPrune;
    const found = await countCustomResources(context.connection, live);
    if (found.count === 0) return allowPrune;
    const count = `${found.count}${found.more ? '+' : ''}`;
    return keep(`CustomResourceDefinition ${live.metadata.name} still has ${count} custom resources (${found.examples.join(', ')}${found.count > found.examples.length ? ', …' : ''}); ` +
      `deleting it would delete them all, so it is orphaned (left in the cluster). Delete them first, or annotate the CRD ${pruneAnnotation}: "true".`);
  },
};
