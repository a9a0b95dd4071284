// Owns: the health checks of target clusters (one checker per cluster, by a RedisLease), pausing and
//   resuming the cluster's queue, and the sampler of each cluster's recent queue figures for the dashboard's
//   sparklines, and the heartbeats of agents (the agent's writer, the hub's watch that makes a silent agent's
//   cluster Unavailable). The records' formats and parsers live in contracts; their writers here (health-records.ts).
// Entry points: startHealthMonitor, startClusterSeries, startAgentHeartbeat, startAgentWatch.
// Records: ClusterHealth (cluster-health:<cluster>), the cluster series (cluster-series:<cluster>) and their
//   leases (lease:health:<cluster>, lease:cluster-series), the agent heartbeat (agent-heartbeat:<cluster>) and
//   the set of clusters agents serve (agent-clusters).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/status-store.

export { startHealthMonitor } from './health-monitor';
export { startClusterSeries } from './cluster-series';
export { writeClusterHealth, appendClusterSample, markAgentClusters } from './health-records';
export { startAgentHeartbeat, startAgentWatch } from './agent-heartbeat';
