import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * ClusterHealth is what Tidemark knows about a cluster's reachability; it holds no credential.
 * The health monitor writes it; the dashboard and the status store read it.
 */
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

/** unknownClusterHealth is the health of a cluster never checked. */
export function unknownClusterHealth(cluster: string): ClusterHealth {
  return { cluster, state: 'Unknown', since: new Date(0).toISOString(), lastCheck: new Date(0).toISOString(), queuePaused: false };
}

/** parseClusterHealth checks a stored health record; a missing or unreadable one is Unknown. */
export function parseClusterHealth(cluster: string, raw: string | null | undefined): ClusterHealth {
  if (!raw) return unknownClusterHealth(cluster);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return unknownClusterHealth(cluster);
  }
  const record = value as Partial<ClusterHealth> | null;
  const states = ['Available', 'Unavailable', 'Unknown'];
  if (!record || typeof record !== 'object' || !states.includes(record.state as string) || typeof record.since !== 'string' || typeof record.lastCheck !== 'string') {
    return unknownClusterHealth(cluster);
  }
  return { ...record, cluster, queuePaused: record.queuePaused === true } as ClusterHealth;
}

/** readClusterHealth returns a cluster's health, Unknown when it was never checked. */
export async function readClusterHealth(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<ClusterHealth> {
  return parseClusterHealth(cluster, await redis.get(keys.clusterHealth(cluster)));
}
