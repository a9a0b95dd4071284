// Owns: which clusters an object goes to: Placement objects in Git, label selectors, and the
//   cluster-selector annotation. Pure rules plus a per-revision cache. Sync windows: when writes may
//   go to a cluster (allow and deny windows by cron, duration and time zone), a pure verdict, and the monitor
//   that times each cluster's hold and wakes it when a window lets go (startSyncWindowMonitor).
// Entry points: PlacementCache (targetsOf, identityAt: the one placement decision), PlacementRules, rulesAt;
//   compileSyncWindow, syncWindowHold, startSyncWindowMonitor.
// Records: none.
// May import: @tidemark/contracts.

export { PlacementRules, isPlacementObject, clusterSelectorAnnotation, type ClusterTarget } from './placement';
export { SelectorError, matches, requirementsOf, type LabelSelector, type Requirement } from './label-selector';
export { rulesAt, PlacementCache, isPlacementKey, type PlacementSource } from './source-placement';
export { compileSyncWindow, SyncWindowError, type SyncWindow } from './sync-windows/sync-window';
export { syncWindowHold } from './sync-windows/window-verdict';
export { startSyncWindowMonitor, syncWindowOf, holdForEverySource, type SyncWindowsOptions } from './sync-windows/window-monitor';
