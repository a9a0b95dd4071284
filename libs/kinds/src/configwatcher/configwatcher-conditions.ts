/** The condition a ConfigWatcher reports about its ConfigMap, and its reasons. */
export const configMapWatchedCondition = 'ConfigMapWatched';

export const ConfigWatcherReason = {
  ConfigMapMissing: 'ConfigMapMissing',
  EmptySelector: 'EmptySelector',
  HashRecorded: 'HashRecorded',
  Unchanged: 'Unchanged',
  HealedBack: 'HealedBack',
  PodsDeleted: 'PodsDeleted',
  DeploymentsRestarted: 'DeploymentsRestarted',
} as const;
export type ConfigWatcherReason = (typeof ConfigWatcherReason)[keyof typeof ConfigWatcherReason];
