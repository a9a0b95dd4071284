export { allowPrune, keep, describeEntry, pruneAnnotation, pruneOptIn, type KeptObject, type PruneCandidate, type PruneContext, type PruneGuard, type PruneVerdict } from './prune-guard';
export { adjudicatePrune, defaultPruneGuards } from './adjudicate';
export { checkOwnership, ownershipGuard, ownsOwnerAnnotation } from './ownership-guard';
export { pruneAnnotationGuard } from './prune-annotation-guard';
export { builtinCrdGuard } from './builtin-crd-guard';
export { stillDeclaredGuard } from './still-declared-guard';
export { crdInstancesGuard } from './crd-instances-guard';
export { namespaceContentsGuard } from './namespace-contents-guard';
export { ownSourceGuard } from './own-source-guard';
