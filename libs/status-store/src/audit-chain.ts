import { auditHashOf, parseAuditRecord } from './audit-record';

/** StoredAuditRecord is one stream entry: its id and its raw JSON. */
export interface StoredAuditRecord {
  id: string;
  raw: string;
}

/**
 * AuditHead is written with every record, atomically: the newest record's id and hash, and the
 * `prev` of the oldest record kept (the stream is trimmed; the anchor is where the kept chain starts).
 */
export interface AuditHead {
  id: string;
  hash: string;
  anchor: string;
}

/** AuditChainVerdict: the chain holds, or the first record where it breaks, and why. */
export type AuditChainVerdict =
  | { ok: true; checked: number }
  | { ok: false; checked: number; broken: { id: string; reason: string } };

/**
 * verifyAuditChain checks stored records, oldest first, against the head: each record's hash
 * matches its content (else it was edited), each `prev` is the hash of the record before it
 * (else one between was deleted), the oldest follows the anchor, and the newest is the head
 * (else the newest was deleted). It names the first record where the chain breaks.
 */
export function verifyAuditChain(records: readonly StoredAuditRecord[], head: AuditHead | undefined): AuditChainVerdict {
  if (!head) {
    return records.length === 0 ? { ok: true, checked: 0 } : { ok: false, checked: 0, broken: { id: records[0]!.id, reason: `record ${records[0]!.id} exists but the chain head is missing: the head was deleted` } };
  }
  let expectedPrev = head.anchor;
  let previousId: string | undefined;
  let checked = 0;
  for (const { id, raw } of records) {
    const record = parseAuditRecord(raw);
    if ('problem' in record) return { ok: false, checked, broken: { id, reason: `record ${id} is unreadable (${record.problem}): it was edited` } };
    if (auditHashOf(record) !== record.hash) return { ok: false, checked, broken: { id, reason: `record ${id} was edited: its content does not match its hash` } };
    if (record.prev !== expectedPrev) {
      const where = previousId ? `between record ${previousId} and record ${id}` : `before record ${id}, the oldest kept`;
      return { ok: false, checked, broken: { id, reason: `a record ${where} was deleted or edited: record ${id} does not follow the chain` } };
    }
    expectedPrev = record.hash;
    previousId = id;
    checked += 1;
  }
  if (expectedPrev !== head.hash || (previousId ?? '') !== head.id) {
    return { ok: false, checked, broken: { id: head.id, reason: `the newest record ${head.id} was deleted or replaced: the chain ends at ${previousId ?? 'nothing'}` } };
  }
  return { ok: true, checked };
}
