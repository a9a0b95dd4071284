import type { RedisClient } from '@tidemark/contracts';
import { verifyAuditChain, type AuditChainVerdict, type AuditHead, type StoredAuditRecord } from './audit-chain';
import { parseAuditRecord, sealAuditRecord, type AuditEntry, type AuditRecord, type AuditResult } from './audit-record';

/** AuditLogOptions: where the trail lives, and how much of it is kept. */
export interface AuditLogOptions {
  redis: RedisClient;
  /** The deployment's key prefix (RecordKeys.prefix): the stream is `<prefix>:audit`, its head `<prefix>:audit-head`. */
  prefix: string;
  /** Records kept, about (XADD MAXLEN ~): the oldest are trimmed first. @defaultValue 100000 */
  maxRecords?: number;
}

/** AuditFilter narrows a listing; each field matches as a case-insensitive substring. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  result?: AuditResult;
  /** Most records returned, newest first. @defaultValue 100 */
  limit?: number;
}

/** ListedAuditRecord is a record with its stream id. */
export type ListedAuditRecord = AuditRecord & { id: string };

// Appends only after the record the writer linked to (ARGV[1]) is still the newest; else returns
// false and the writer links again. The head moves with the record, in the same script. The anchor
// moves only when XADD trimmed (the length did not grow by one), so a record deleted by hand from
// the start of the stream is not taken for a trimmed one.
const appendScript = `
local head = redis.call('HGET', KEYS[2], 'hash') or ''
if head ~= ARGV[1] then return false end
local before = redis.call('XLEN', KEYS[1])
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'record', ARGV[2])
redis.call('HSET', KEYS[2], 'hash', ARGV[3], 'id', id)
if redis.call('XLEN', KEYS[1]) <= before then
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  local ok, first = pcall(cjson.decode, oldest[2][2])
  if ok and type(first) == 'table' and type(first['prev']) == 'string' then redis.call('HSET', KEYS[2], 'anchor', first['prev']) end
end
return id
`;

const maxAttempts = 50;

/**
 * AuditLog is the one writer and reader of the audit trail: a bounded Redis stream of hash-chained
 * records (AuditRecord), each appended with the chain head in one script, so a record deleted or
 * edited afterwards is found by verify().
 */
export class AuditLog {
  private readonly stream: string;
  private readonly headKey: string;
  private readonly maxRecords: number;

  constructor(private readonly options: AuditLogOptions) {
    this.stream = `${options.prefix}:audit`;
    this.headKey = `${options.prefix}:audit-head`;
    this.maxRecords = options.maxRecords ?? 100_000;
    if (!Number.isInteger(this.maxRecords) || this.maxRecords < 10) throw new Error(`AuditLog: maxRecords must be an integer of at least 10, not ${this.maxRecords}.`);
  }

  /** append seals an entry after the newest record and stores it; concurrent writers retry. */
  async append(entry: AuditEntry, at = new Date()): Promise<ListedAuditRecord> {
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      const prev = (await this.options.redis.hget(this.headKey, 'hash')) ?? '';
      const record = sealAuditRecord(entry, prev, at);
      const id = await this.options.redis.eval(appendScript, 2, this.stream, this.headKey, prev, JSON.stringify(record), record.hash, String(this.maxRecords));
      if (typeof id === 'string') return { ...record, id };
    }
    throw new Error(`AuditLog: could not append a record after ${maxAttempts} attempts: other writers kept moving the head of ${this.stream}.`);
  }

  /** list returns the newest records that match the filter, newest first. */
  async list(filter: AuditFilter = {}): Promise<ListedAuditRecord[]> {
    const limit = filter.limit ?? 100;
    const found: ListedAuditRecord[] = [];
    let end = '+';
    // Pages of the stream, newest first, until enough match or it is read to the start.
    for (;;) {
      const page = (await this.options.redis.xrevrange(this.stream, end, '-', 'COUNT', 500)) as [string, string[]][];
      for (const [id, fields] of page) {
        const record = parseAuditRecord(fields[fields.indexOf('record') + 1] ?? '');
        if ('problem' in record || !matches(record, filter)) continue;
        found.push({ ...record, id });
        if (found.length >= limit) return found;
      }
      if (page.length < 500) return found;
      end = `(${page[page.length - 1]![0]}`;
    }
  }

  /** verify reads the whole kept trail and checks its chain (verifyAuditChain). */
  async verify(): Promise<AuditChainVerdict> {
    const head = await this.head();
    const records: StoredAuditRecord[] = [];
    let start = '-';
    for (;;) {
      const page = (await this.options.redis.xrange(this.stream, start, '+', 'COUNT', 1000)) as [string, string[]][];
      for (const [id, fields] of page) records.push({ id, raw: fields[fields.indexOf('record') + 1] ?? '' });
      if (page.length < 1000) break;
      start = `(${page[page.length - 1]![0]}`;
    }
    return verifyAuditChain(records, head);
  }

  private async head(): Promise<AuditHead | undefined> {
    const head = await this.options.redis.hgetall(this.headKey);
    return head.hash === undefined || head.id === undefined ? undefined : { hash: head.hash, id: head.id, anchor: head.anchor ?? '' };
  }
}

function matches(record: AuditRecord, filter: AuditFilter): boolean {
  const has = (text: string, wanted: string | undefined) => !wanted || text.toLowerCase().includes(wanted.toLowerCase());
  return has(record.actor.name, filter.actor) && has(record.action, filter.action)
    && has(`${record.target.cluster ?? ''}/${record.target.type}/${record.target.name}`, filter.target)
    && (!filter.result || record.result === filter.result);
}
