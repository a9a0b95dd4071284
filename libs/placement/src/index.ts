// Owns: which clusters an object goes to: Placement objects in Git, label selectors, and the
//   cluster-selector annotation. Pure rules plus a per-revision cache. Sync windows: when writes may
//   go to a cluster (allow and deny windows by cron, duration and time zone), a pure verdict, and the monitor
//   that times each cluster's hold and wakes it when a window lets go (startSyncWindowMonitor).
// Entry points: PlacementCache (targetsOf, identityAt: the one placement decision), PlacementRules, rulesAt;
//   compileSyncWindow, syncWindowHold, startSyncWindowMonitor.
// Records: none.
// May import: @tidemark/contracts.

export { PlacementRules, isPlacementObject, placementApiVersion, placementKind, clusterSelectorAnnotation, type ClusterTarget, type UnitTarget } from './placement';
export { type PlacedIdentity, type RuleServiceAccount } from './rule-identity';
export { SelectorError, matches, requirementsOf, type LabelSelector, type Requirement } from './label-selector';
export { rulesAt, PlacementCache, isPlacementKey, type PlacementSource, type PlacedObject } from './source-placement';
export { compileSyncWindow, SyncWindowError, type SyncWindow, type SyncWindowInput } from './sync-windows/sync-window';
export { syncWindowHold, type SyncWindowHold, type ClusterOfWindow } from './sync-windows/window-verdict';
export { startSyncWindowMonitor, SyncWindowMonitor, syncWindowOf, holdForEverySource, unknownClusters, type SyncWindowsOptions, type SyncWindowMonitorOptions, type WindowHoldNow } from './sync-windows/window-monitor';
