import { ConditionType, jsonRecordOf, Reason, setCondition, type AppliedResource, type ClusterHealth, type ObjectStatus, type RedisClient } from '@tidemark/contracts';

/** How many records of a cluster one read asks for (an HSCAN's COUNT, an HMGET's fields). */
export const recordBatch = 500;

/**
 * scanRecords visits every field of a cluster's status hash as stored (object key, raw record), a
 * batch at a time: a whole cluster is never held at once.
 */
export async function scanRecords(redis: RedisClient, hashKey: string, visit: (objectKey: string, raw: string) => void): Promise<void> {
  let cursor = '0';
  do {
    const [next, entries] = await redis.hscan(hashKey, cursor, 'COUNT', recordBatch);
    cursor = next;
    for (let index = 0; index + 1 < entries.length; index += 2) visit(entries[index]!, entries[index + 1]!);
  } while (cursor !== '0');
}

/**
 * parseStatusRecord reads a stored record, checking the fields every reader relies on; a record
 * that is not one (written by another version, or by hand) is skipped rather than trusted.
 */
export function parseStatusRecord(raw: string | null | undefined): ObjectStatus | undefined {
  const record = jsonRecordOf(raw) as Partial<ObjectStatus> | undefined;
  if (!record) return undefined;
  const text = ['cluster', 'objectKey', 'source', 'kind', 'name'] as const;
  if (text.some((field) => typeof record[field] !== 'string')) return undefined;
  if (!Array.isArray(record.conditions) || !Array.isArray(record.inventory)) return undefined;
  // What a run applied drives wakes and the dashboard's rows: an entry that is not an object's name is dropped here, once.
  if (record.resources !== undefined) record.resources = Array.isArray(record.resources) ? record.resources.filter(isAppliedResource) : [];
  return record as ObjectStatus;
}

function isAppliedResource(value: unknown): value is AppliedResource {
  if (!value || typeof value !== 'object') return false;
  const { apiVersion, kind, namespace, name } = value as Record<string, unknown>;
  return typeof apiVersion === 'string' && typeof kind === 'string' && typeof namespace === 'string' && typeof name === 'string';
}

/**
 * withClusterAvailability shows, while a cluster is Unavailable, why its objects wait:
 * Ready=Unknown and Reconciling=True with reason ClusterUnavailable. The stored record is not
 * touched, so the last run's own conditions are back as soon as the cluster is.
 */
export function withClusterAvailability(record: ObjectStatus, health: ClusterHealth): ObjectStatus {
  if (health.state !== 'Unavailable') return record;
  const since = new Date(health.since);
  const generation = record.observedGeneration ?? 0;
  const message = health.message ?? `Cluster ${health.cluster} is unavailable. Its queue is paused until it answers again.`;
  let conditions = setCondition(record.conditions, { type: ConditionType.Ready, status: 'Unknown', observedGeneration: generation, reason: Reason.ClusterUnavailable, message }, since);
  conditions = setCondition(conditions, { type: ConditionType.Reconciling, status: 'True', observedGeneration: generation, reason: Reason.ClusterUnavailable, message }, since);
  return { ...record, conditions };
}
