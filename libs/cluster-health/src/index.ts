// libs/cluster-health owns the health checks of target clusters: one checker per cluster (by a
// RedisLease), the ClusterHealth record it writes, and pausing and resuming the cluster's queue.
// It may import contracts, cluster and status-store; the record's format lives in contracts.

export { startHealthMonitor, type HealthMonitorOptions, type QueueSwitch } from './health-monitor';
