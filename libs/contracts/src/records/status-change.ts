/**
 * StatusChange is the message published on `RecordKeys.statusChanges` after every write to an
 * object's status, so dashboards update live and watches notice new kinds. 'deleted' when the
 * record was removed.
 */
export interface StatusChange {
  cluster: string;
  objectKey: string;
  kind: 'updated' | 'deleted';
}

/** parseStatusChange reads a message off the channel; undefined for anything else. */
export function parseStatusChange(message: string): StatusChange | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  const change = value as Partial<StatusChange> | null;
  if (!change || typeof change.cluster !== 'string' || typeof change.objectKey !== 'string') return undefined;
  if (change.kind !== 'updated' && change.kind !== 'deleted') return undefined;
  return { cluster: change.cluster, objectKey: change.objectKey, kind: change.kind };
}
