/** RestartStrategy says how a ConfigWatcher restarts workloads when its ConfigMap changes. */
export type RestartStrategy = 'DeletePods' | 'RolloutRestart';

/** ConfigWatcherSpec is spec of a ConfigWatcher, as in the original example plus `strategy`. */
export type ConfigWatcherSpec = {
  configMap: string;
  podSelector: { matchLabels?: Record<string, string> };
  /** Defaults to DeletePods, the original behaviour. */
  strategy?: RestartStrategy;
};

/** ConfigWatcherStatus is what act() records between runs. */
export type ConfigWatcherStatus = {
  /** sha256 of the ConfigMap's data and binaryData the last run acted on. */
  lastConfigMapHash: string;
  restarts: number;
  /** RFC 3339 time of the last restart. */
  lastRestartTime: string;
  /** The ConfigMap's resourceVersion when its hash was last recorded: a later version with the same hash changed and came back. */
  lastConfigMapResourceVersion: string;
};

export const configWatcherGroup = 'k8spatterns.com';
export const configWatcherVersion = 'v1';
export const configWatcherKind = 'ConfigWatcher';
export const configWatcherPlural = 'configwatchers';
