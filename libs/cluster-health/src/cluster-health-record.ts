// The light entry point: health records only, without the Kubernetes client (the dashboard reads these).
import type { Redis } from 'ioredis';

/** ClusterHealth is what Tidemark knows about a cluster's reachability; it holds no credential. */
export interface ClusterHealth {
  cluster: string;
  state: 'Available' | 'Unavailable' | 'Unknown';
  /** When the state last changed (RFC 3339). */
  since: string;
  lastCheck: string;
  /** How long the last health request took. */
  latencyMs?: number;
  /** Why the cluster is unavailable, a sentence. */
  message?: string;
  /** Whether its queue is paused because of it. */
  queuePaused: boolean;
}

/** clusterHealthKey is the Redis hash of a cluster's health. */
export function clusterHealthKey(keyPrefix: string, cluster: string): string {
  return `${keyPrefix}cluster-health:${cluster}`;
}

export async function writeClusterHealth(redis: Redis, keyPrefix: string, health: ClusterHealth): Promise<void> {
  await redis.set(clusterHealthKey(keyPrefix, health.cluster), JSON.stringify(health));
}

/** readClusterHealth returns a cluster's health, Unknown when it was never checked. */
export async function readClusterHealth(redis: Redis, keyPrefix: string, cluster: string): Promise<ClusterHealth> {
  const raw = await redis.get(clusterHealthKey(keyPrefix, cluster));
  if (raw) return JSON.parse(raw) as ClusterHealth;
  return { cluster, state: 'Unknown', since: new Date(0).toISOString(), lastCheck: new Date(0).toISOString(), queuePaused: false };
}
