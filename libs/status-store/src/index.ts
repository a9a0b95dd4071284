// libs/status-store owns the per-object status records in Redis: the record the pipeline writes
// once per run with its history entry, the operator's suspend flag, and the read view that joins
// them with the cluster's availability; plus the change channel. It may import only contracts.

export { StatusStore, type StatusStoreOptions, type RevisionLive } from './status-store';
export { PruneHolds, type PruneHold } from './prune-holds';
