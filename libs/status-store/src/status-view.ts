import { ConditionType, Reason, setCondition, type ClusterHealth, type ObjectStatus } from '@tidemark/contracts';

/**
 * parseStatusRecord reads a stored record, checking the fields every reader relies on; a record
 * that is not one (written by another version, or by hand) is skipped rather than trusted.
 */
export function parseStatusRecord(raw: string | null | undefined): ObjectStatus | undefined {
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const record = value as Partial<ObjectStatus> | null;
  if (!record || typeof record !== 'object') return undefined;
  const text = ['cluster', 'objectKey', 'source', 'kind', 'name'] as const;
  if (text.some((field) => typeof record[field] !== 'string')) return undefined;
  if (!Array.isArray(record.conditions) || !Array.isArray(record.inventory)) return undefined;
  return record as ObjectStatus;
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
