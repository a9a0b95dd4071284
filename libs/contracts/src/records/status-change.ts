import { jsonRecordOf, textOf } from './record-fields';

/**
 * StatusChange is the message published on `RecordKeys.statusChanges` with every write to an
 * object's status (in the write's own transaction), so dashboards update live and watches notice
 * new kinds. 'deleted' when the record was removed.
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

/**
 * StatusSync is a marker a reader publishes on the same channel: every change published before
 * it reaches a subscriber before it, so a cache that has seen its marker has seen every write
 * made before the marker was sent.
 */
export interface StatusSync {
  sync: string;
}

/** parseStatusSync reads a sync marker off the channel; undefined for anything else. */
export function parseStatusSync(message: string): StatusSync | undefined {
  const sync = textOf(jsonRecordOf(message)?.sync, 256);
  return sync === undefined ? undefined : { sync };
}
