import type { ClusterHealth, ClusterSample, RecordKeys, RedisClient } from '@tidemark/contracts';

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
