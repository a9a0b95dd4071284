/**
 * SyncWindowPass is an operator's "sync this object now" while a sync window holds its cluster:
 * the dashboard writes one with every reconcile an operator asks for (dashboard, API, CLI; the
 * request itself is in the audit trail), and the pipeline takes it, once (writer and taker: libs/status-store), when the window that
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
