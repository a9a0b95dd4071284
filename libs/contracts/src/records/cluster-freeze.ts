import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * ClusterFreeze is an operator's "no writes to this cluster until I lift it": who set it, why and
 * since when. The dashboard writes it (POST /api/clusters/{cluster}/freeze); the pipeline reads it
 * before any write to the cluster, and the dashboard and CLI show it. Lifting it deletes the record.
 */
export interface ClusterFreeze {
  cluster: string;
  /** Who set it: the dashboard principal's name. */
  by: string;
  /** Why, in the operator's words. */
  reason: string;
  /** When it was set (RFC 3339). */
  since: string;
}

/** maxFreezeReasonLength bounds the reason an operator gives, which every frozen object's message quotes. */
export const maxFreezeReasonLength = 500;
const maxFreezeByLength = 200;

/**
 * parseClusterFreeze reads a stored freeze as hostile input: absent is not frozen; a record that is
 * unreadable or holds the wrong fields still freezes the cluster (a write that cannot prove the
 * cluster is open does not happen), and says so. Texts lose control characters and are bounded.
 */
export function parseClusterFreeze(cluster: string, raw: string | null | undefined): ClusterFreeze | undefined {
  if (raw === null || raw === undefined) return undefined;
  const unreadable: ClusterFreeze = { cluster, by: 'unknown', reason: 'the freeze record in Redis is unreadable; unfreeze the cluster to lift it', since: new Date(0).toISOString() };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return unreadable;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return unreadable;
  const { by, reason, since } = value as Record<string, unknown>;
  if (typeof by !== 'string' || typeof reason !== 'string' || typeof since !== 'string' || Number.isNaN(Date.parse(since))) return unreadable;
  return { cluster, by: plainText(by, maxFreezeByLength) || 'unknown', reason: plainText(reason, maxFreezeReasonLength), since: new Date(Date.parse(since)).toISOString() };
}

/** plainText keeps one line of at most `max` characters: a record may be written by anyone who can write Redis. */
function plainText(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim().slice(0, max);
}

/** describeFreeze is the sentence every reader shows: "frozen by alice since <time>: <reason>". */
export function describeFreeze(freeze: ClusterFreeze): string {
  return `frozen by ${freeze.by} since ${freeze.since}${freeze.reason ? `: ${freeze.reason}` : ''}`;
}

/** readClusterFreeze returns a cluster's freeze, undefined when it is not frozen. */
export async function readClusterFreeze(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<ClusterFreeze | undefined> {
  return parseClusterFreeze(cluster, await redis.get(keys.clusterFreeze(cluster)));
}
