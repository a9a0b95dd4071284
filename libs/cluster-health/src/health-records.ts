import type { AgentHeartbeat, ClusterHealth, ClusterSample, RecordKeys, RedisClient } from '@tidemark/contracts';

// The writers of the records this library owns; their formats and parsers live in contracts.

/** writeClusterHealth stores what the health monitor found about a cluster. */
export async function writeClusterHealth(redis: RedisClient, keys: RecordKeys, health: ClusterHealth): Promise<void> {
  await redis.set(keys.clusterHealth(health.cluster), JSON.stringify(health));
}

/** appendClusterSample adds a sample and drops the oldest beyond `keep`. */
export async function appendClusterSample(redis: RedisClient, keys: RecordKeys, cluster: string, sample: ClusterSample, keep: number): Promise<void> {
  const key = keys.clusterSeries(cluster);
  await redis.multi().lpush(key, JSON.stringify(sample)).ltrim(key, 0, keep - 1).exec();
}

/** writeAgentHeartbeat stores the agent's record for ttlMs; not written again in time, it is gone. */
export async function writeAgentHeartbeat(redis: RedisClient, keys: RecordKeys, heartbeat: AgentHeartbeat): Promise<void> {
  await redis.set(keys.agentHeartbeat(heartbeat.cluster), JSON.stringify(heartbeat), 'PX', heartbeat.ttlMs);
}

/** markAgentClusters records the clusters the hub's config says agents serve (the set is replaced whole). */
export async function markAgentClusters(redis: RedisClient, keys: RecordKeys, clusters: readonly string[]): Promise<void> {
  const key = keys.agentClusters();
  if (clusters.length === 0) {
    await redis.del(key);
    return;
  }
  await redis.multi().del(key).sadd(key, ...clusters).exec();
}
