// libs/cluster-health owns the health checks of target clusters: one checker per cluster (by a
// RedisLease), the ClusterHealth record it writes, and pausing and resuming the cluster's queue;
// and the sampler of each cluster's recent queue figures for the dashboard's sparklines.
// It may import contracts, cluster and status-store; the record's format lives in contracts.

export { startHealthMonitor, type HealthMonitorOptions, type QueueSwitch } from './health-monitor';
export { startClusterSeries, sampleOf, type ClusterSeriesOptions, type SampledFigures } from './cluster-series';
