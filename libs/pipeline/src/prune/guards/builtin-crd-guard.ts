import { allowPrune, keep, type PruneCandidate, type PruneGuard, type PruneVerdict } from './prune-guard';

/**
 * builtinCrdGuard never deletes the CRD of a built-in kind (ConfigWatcher, WebApp) on behalf of
 * a source that is not allowed to manage it: Tidemark installs and keeps those itself.
 */
export const builtinCrdGuard: PruneGuard = {
  name: 'builtin-crd',
  check({ live, context }: PruneCandidate): PruneVerdict {
    if (live.kind !== 'CustomResourceDefinition') return allowPrune;
    const builtin = context.builtinCrd(live.metadata.name);
    if (!builtin || builtin.managedBySource) return allowPrune;
    return keep(`CustomResourceDefinition ${live.metadata.name} is the CRD of Tidemark's built-in kind ${builtin.kind}; Tidemark keeps it, so it is not deleted.`);
  },
};
