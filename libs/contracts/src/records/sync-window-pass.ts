import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * SyncWindowPass is an operator's "sync this object now" while a sync window holds its cluster:
 * the dashboard writes one with every reconcile an operator asks for (dashboard, API, CLI; the
 * request itself is in the audit trail), and the pipeline takes it, once, when the window that
 * holds says manualSync. It expires unused, so an old click never opens a later window.
 */
export interface SyncWindowPass {
  /** Who asked: the dashboard principal's name. */
  by: string;
  /** When (RFC 3339). */
  at: string;
}

/** syncWindowPassSeconds is how long a pass waits to be taken. */
export const syncWindowPassSeconds = 600;

/** writeSyncWindowPass records a pass for one object of a cluster, replacing one not yet taken. */
export async function writeSyncWindowPass(redis: RedisClient, keys: RecordKeys, cluster: string, objectKey: string, pass: SyncWindowPass): Promise<void> {
  await redis.set(keys.syncWindowPass(cluster, objectKey), JSON.stringify({ by: pass.by, at: pass.at }), 'EX', syncWindowPassSeconds);
}

/** takeSyncWindowPass reads and deletes an object's pass in one step, so two runs never both use it; undefined when there is none. */
export async function takeSyncWindowPass(redis: RedisClient, keys: RecordKeys, cluster: string, objectKey: string): Promise<SyncWindowPass | undefined> {
  return parseSyncWindowPass(await redis.getdel(keys.syncWindowPass(cluster, objectKey)));
}

/** parseSyncWindowPass reads a stored pass as hostile input: one that does not parse is no pass (it opens nothing); texts lose control characters and are bounded. */
export function parseSyncWindowPass(raw: string | null): SyncWindowPass | undefined {
  if (raw === null || raw.length > 4096) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { by, at } = value as Record<string, unknown>;
  if (typeof by !== 'string' || typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  // eslint-disable-next-line no-control-regex
  return { by: by.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim().slice(0, 200) || 'unknown', at: new Date(Date.parse(at)).toISOString() };
}
