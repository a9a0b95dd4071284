// Owns: the per-object status records: the record the pipeline writes once per run with its history entry,
//   the operator's suspend flag, and the read view that joins them with the cluster's availability; plus the
//   change channel, prune holds and the audit trail (a hash-chained Redis stream of who did what, its one
//   writer and its chain check); the commit-to-live clock (when a commit's change started, and the run
//   that first found each changed object Ready); the tally of records by Ready and drift that the metrics
//   read (StatusTally: from the change channel, not a read of every record per scrape).
// Entry points: StatusStore, StatusTally, PruneHolds, RecordsLost, AuditLog, verifyAuditChain, CommitClock, ClusterKeysMover (an
//   older release's records to their clusters' hash tags, across a rolling upgrade).
// Records: status:<cluster>, history:<cluster>:<object>, suspended:<cluster>, status-clusters,
//   status-changes, live children, revision-live, prune-hold(s), records-lost, audit and audit-head,
//   sync-window-pass:<cluster>:<object> (an operator's pass: written by the dashboard, taken by a run),
//   commit-clock:<source>:<revision>:<cluster> and webhook-arrival:<source> (CommitClock, their one writer).
// May import: @tidemark/contracts.

export { StatusStore, type RevisionLive } from './status-store';
export { StatusTally, type ClusterCounts } from './status-tally';
export { PruneHolds, type PruneHold } from './prune-holds';
export { ClusterKeysMover } from './cluster-keys-mover';
export { RecordsLost, type RebuildSummary } from './records-lost';
export { writeSyncWindowPass, takeSyncWindowPass } from './sync-window-pass';
export { verifyAuditChain } from './audit-chain';
export { CommitClock } from './commit-clock';
export { AuditLog, type AuditFilter, type ListedAuditRecord } from './audit-log';
export { type AuditActor, type AuditEntry, type AuditRecord, type AuditResult, type AuditTarget } from './audit-record';
