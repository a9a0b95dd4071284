// Owns: the cluster watches that wake objects: owned objects (drift, deletion) and objects a kind references
//   (ConfigWatcher's ConfigMaps), CRDs becoming Established (waking what waits for them, and reading a
//   cluster's capabilities again for Helm). The owned-object watches also fill each cluster's watch cache
//   for the pipeline; it enqueues by revisionFor.
// Entry points: startOwnedWatches, startReferenceWatches, startTreeWatches, watchCrdsEstablished,
//   watchCapabilities.
// Records: the watch and tree leases (lease:watch:<cluster>, lease:tree:<cluster>).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/kinds, @tidemark/ordering,
//   @tidemark/status-store.

export { startReferenceWatches } from './reference-watches';
export { startOwnedWatches, type OwnedWatches } from './owned-watches';
export { watchBuiltinCrds } from './builtin-crd-watch';
export { startTreeWatches } from './tree-watches';
export { watchCrdsEstablished } from './crd-established-watch';
export { watchCapabilities } from './capabilities-watch';
