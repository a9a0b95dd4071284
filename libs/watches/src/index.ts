export { startReferenceWatches, type ReferenceWatchOptions, type Enqueuer, type WatchLogger } from './reference-watches';
