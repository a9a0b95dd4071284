import { countOf, jsonListOf, jsonRecordOf, listOf, oneOf, optional, recordOf, textOf, type ChangeCounts, type LiveChild, type ReconcileRecord, type ResourceHealth } from '@tidemark/contracts';

// The lists the status store keeps beside each record: an object's run history and the live
// children of its owners. Both are read as hostile input, field by field (see contracts'
// record-fields.ts): an entry that is not one is dropped, never trusted.

const nameLength = 253;
const healths: readonly ResourceHealth[] = ['Ready', 'Progressing', 'Failed', 'Unknown'];
const results: readonly ReconcileRecord['result'][] = ['succeeded', 'progressing', 'waiting', 'failed', 'stalled', 'pruned', 'skipped'];

/** parseLiveChildren reads one owner's stored children; an entry that is not a child is dropped. */
export function parseLiveChildren(raw: string | null | undefined): LiveChild[] {
  return listOf(jsonListOf(raw), parseLiveChild) ?? [];
}

function parseLiveChild(value: unknown): LiveChild | undefined {
  const entry = recordOf(value);
  const kind = textOf(entry?.kind, nameLength);
  const namespace = textOf(entry?.namespace, nameLength);
  const name = textOf(entry?.name, nameLength);
  const uid = textOf(entry?.uid, 128);
  const ownerUid = textOf(entry?.ownerUid, 128);
  const health = oneOf(entry?.health, healths);
  if (!entry || kind === undefined || namespace === undefined || name === undefined || uid === undefined || ownerUid === undefined || health === undefined) return undefined;
  return { kind, namespace, name, uid, ownerUid, health, ...optional('message', textOf(entry.message)) };
}

/** parseReconcileRecord reads one entry of an object's history; undefined for anything that is not a run. */
export function parseReconcileRecord(raw: string | null | undefined): ReconcileRecord | undefined {
  const entry = jsonRecordOf(raw);
  const revision = textOf(entry?.revision, 128);
  const startedAt = textOf(entry?.startedAt, 64);
  const result = oneOf(entry?.result, results);
  if (!entry || revision === undefined || startedAt === undefined || result === undefined) return undefined;
  return {
    revision, startedAt, result, durationMs: countOf(entry.durationMs) ?? 0,
    ...optional('stage', textOf(entry.stage, nameLength)),
    ...optional('message', textOf(entry.message)),
    ...optional('changes', parseChangeCounts(entry.changes)),
    ...optional('repeats', countOf(entry.repeats)),
    ...optional('lastAt', textOf(entry.lastAt, 64)),
    ...optional('traceId', textOf(entry.traceId, 32)),
  };
}

function parseChangeCounts(value: unknown): ChangeCounts | undefined {
  const counts = recordOf(value);
  if (!counts) return undefined;
  return { created: countOf(counts.created) ?? 0, configured: countOf(counts.configured) ?? 0, unchanged: countOf(counts.unchanged) ?? 0, deleted: countOf(counts.deleted) ?? 0 };
}
