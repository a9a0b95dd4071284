export { startReferenceWatches, type ReferenceWatchOptions, type Enqueuer, type WatchLogger } from './reference-watches';
export { startOwnedWatches, type OwnedWatchOptions } from './owned-watches';
export { managedKinds, isOwnEcho, type WatchedKind } from './managed-kinds';
