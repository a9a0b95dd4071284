// Owns: the cluster watches that wake objects: owned objects (drift, deletion) and objects a kind references
//   (ConfigWatcher's ConfigMaps), CRDs becoming Established (waking what waits for them, and reading a
//   cluster's capabilities again for Helm). The owned-object watches also fill each cluster's watch cache
//   for the pipeline; it enqueues by revisionFor.
// Entry points: startOwnedWatches, startReferenceWatches, startTreeWatches, watchCrdsEstablished,
//   watchCapabilities.
// Records: the watch and tree leases (lease:watch:<cluster>, lease:tree:<cluster>).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/kinds, @tidemark/ordering,
//   @tidemark/status-store.

export { startReferenceWatches, type ReferenceWatchOptions, type Enqueuer } from './reference-watches';
export { startOwnedWatches, type OwnedWatchOptions, type OwnedWatches } from './owned-watches';
export { type WatchedKind } from './managed-kinds';
export { watchBuiltinCrds, type BuiltinCrdWatchOptions } from './builtin-crd-watch';
export { startTreeWatches, type TreeWatchOptions } from './tree-watches';
export { watchCrdsEstablished, type CrdEstablishedWatchOptions } from './crd-established-watch';
export { watchCapabilities, type CapabilitiesWatchOptions } from './capabilities-watch';
