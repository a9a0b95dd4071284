import { createHash } from 'node:crypto';
import { stableStringify } from '@tidemark/contracts';

/** AuditActor is who acted: a token's or a user's name, with the role and groups it acted under. */
export interface AuditActor {
  name: string;
  role?: string;
  groups?: string[];
  /** How the actor was known: a bearer token (the API, the CLI), a session (the UI), or a webhook's signature. */
  via?: 'bearer' | 'session' | 'webhook' | 'anonymous';
}

/** AuditTarget is what an action was aimed at: an object on a cluster, a source, a cluster, a prune hold. */
export interface AuditTarget {
  type: 'object' | 'source' | 'cluster' | 'prune-hold' | 'other';
  /** An object key, a source's or a cluster's name. */
  name: string;
  cluster?: string;
}

/** AuditResult: done (ok), refused for who asked (denied: 401, 403, 429), or failed (error). */
export type AuditResult = 'ok' | 'denied' | 'error';

/** AuditEntry is what a writer says about one action; the log adds the time and the chain. */
export interface AuditEntry {
  actor: AuditActor;
  /** A dotted verb, e.g. `object.suspend`, `source.fetch`, `prune.confirm`, `preview.request`. */
  action: string;
  target: AuditTarget;
  /** The action's parameters, already redacted by the one secret rule (redactValue). */
  parameters: Record<string, unknown>;
  result: AuditResult;
  /** The HTTP status answered. */
  status: number;
  requestId?: string;
  /** The client address (through the configured trusted proxies). */
  client?: string;
}

/**
 * AuditRecord is one stored record: the entry, when, and its link in the chain. `prev` is the
 * previous record's hash ('' for the first ever), `hash` is sha256 of this record's canonical
 * JSON without `hash`: editing a record breaks its hash, deleting one breaks the next one's `prev`.
 */
export interface AuditRecord extends AuditEntry {
  at: string;
  prev: string;
  hash: string;
}

/** auditHashOf is the sha256 of a record's canonical JSON (sorted keys), `hash` left out. */
export function auditHashOf(record: Omit<AuditRecord, 'hash'> & { hash?: string }): string {
  const { hash: _ignored, ...content } = record;
  return createHash('sha256').update(stableStringify(content)).digest('hex');
}

/** sealAuditRecord links an entry after the record whose hash is `prev`. */
export function sealAuditRecord(entry: AuditEntry, prev: string, at: Date): AuditRecord {
  const content = { ...entry, at: at.toISOString(), prev };
  return { ...content, hash: auditHashOf(content) };
}

const results: readonly string[] = ['ok', 'denied', 'error'];

/**
 * parseAuditRecord reads one stored record, or says what is wrong with it. It checks the shape
 * only; whether the record was edited is verifyAuditChain's question.
 */
export function parseAuditRecord(raw: string): AuditRecord | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { problem: 'it is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'it is not a JSON object' };
  const record = value as Record<string, unknown>;
  for (const field of ['action', 'at', 'prev', 'hash', 'result']) {
    if (typeof record[field] !== 'string') return { problem: `field ${field} is missing or not a string` };
  }
  if (!results.includes(record.result as string)) return { problem: `field result is "${String(record.result)}", not ok, denied or error` };
  const problem = partsProblem(record);
  if (problem) return { problem };
  return record as unknown as AuditRecord;
}

/** partsProblem checks the record's nested parts: status, actor, target and parameters. */
function partsProblem(record: Record<string, unknown>): string | undefined {
  if (typeof record.status !== 'number') return 'field status is missing or not a number';
  const actor = record.actor as { name?: unknown } | undefined;
  if (typeof actor !== 'object' || actor === null || typeof actor.name !== 'string') return 'field actor.name is missing or not a string';
  const target = record.target as { type?: unknown; name?: unknown } | undefined;
  if (typeof target !== 'object' || target === null || typeof target.name !== 'string' || typeof target.type !== 'string') return 'field target is missing its type or name';
  if (typeof record.parameters !== 'object' || record.parameters === null) return 'field parameters is missing or not an object';
  return undefined;
}
