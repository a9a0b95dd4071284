import { jsonRecordOf } from './record-fields';
import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * AgentHeartbeat is what an agent (a reconciler with `role: agent`, running inside the cluster it
 * serves) says of itself. It lives only as long as its TTL: a missing record means no agent is
 * serving the cluster. It holds no credential. The agent writes it (libs/cluster-health); the hub and the dashboard read it.
 */
export interface AgentHeartbeat {
  cluster: string;
  /** The agent's Tidemark version. */
  version: string;
  /** The cluster's Kubernetes version as its API server reports it (gitVersion), when it answered. */
  serverVersion?: string;
  /** When the agent last wrote the record (RFC 3339). */
  lastSeen: string;
  /** How long the record lives after each write. */
  ttlMs: number;
}

/** parseAgentHeartbeat checks a stored record; a missing or unreadable one is no heartbeat. */
export function parseAgentHeartbeat(cluster: string, raw: string | null | undefined): AgentHeartbeat | undefined {
  const record = jsonRecordOf(raw) as Partial<AgentHeartbeat> | undefined;
  if (!record || typeof record.version !== 'string' || typeof record.lastSeen !== 'string' || typeof record.ttlMs !== 'number') return undefined;
  return {
    cluster,
    version: record.version.slice(0, 64),
    ...(typeof record.serverVersion === 'string' ? { serverVersion: record.serverVersion.slice(0, 64) } : {}),
    lastSeen: record.lastSeen,
    ttlMs: record.ttlMs,
  };
}

/**
 * readAgentHeartbeat returns the agent's last heartbeat, or undefined when none lives. With
 * per-cluster hash tags, an agent of an older release (not upgraded yet) writes the shared name.
 */
export async function readAgentHeartbeat(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<AgentHeartbeat | undefined> {
  const own = parseAgentHeartbeat(cluster, await redis.get(keys.agentHeartbeat(cluster)));
  if (own || !keys.hashTagged) return own;
  return parseAgentHeartbeat(cluster, await redis.get(keys.sharedAgentHeartbeat(cluster)));
}

/** readAgentClusters lists the clusters agents serve, as the hub's config last said. */
export async function readAgentClusters(redis: RedisClient, keys: RecordKeys): Promise<string[]> {
  return (await redis.smembers(keys.agentClusters())).sort();
}
