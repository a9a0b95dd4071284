export { startHealthMonitor, type HealthMonitorOptions, type QueueSwitch } from './health-monitor';
export { readClusterHealth, writeClusterHealth, clusterHealthKey, type ClusterHealth } from './cluster-health-record';
