// libs/watches owns the cluster watches that wake objects: owned objects (drift, deletion) and
// objects a kind references (ConfigWatcher's ConfigMaps). It enqueues by revisionFor and may
// import contracts, cluster, kinds and status-store.

export { startReferenceWatches, type ReferenceWatchOptions, type Enqueuer } from './reference-watches';
export { startOwnedWatches, type OwnedWatchOptions } from './owned-watches';
export { managedKinds, isOwnEcho, type WatchedKind } from './managed-kinds';
export { watchBuiltinCrds, type BuiltinCrdWatchOptions } from './builtin-crd-watch';
export { startTreeWatches, type TreeWatchOptions } from './tree-watches';
