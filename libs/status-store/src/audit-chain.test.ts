import { describe, expect, it } from 'vitest';
import { verifyAuditChain, type StoredAuditRecord } from './audit-chain';
import { sealAuditRecord, type AuditEntry } from './audit-record';

const entry = (action: string): AuditEntry => ({
  actor: { name: 'otto', role: 'operator', via: 'bearer' }, action, target: { type: 'source', name: 'apps' },
  parameters: {}, result: 'ok', status: 200,
});

function chain(actions: string[]): StoredAuditRecord[] {
  let prev = '';
  return actions.map((action, index) => {
    const record = sealAuditRecord(entry(action), prev, new Date(Date.UTC(2026, 0, 1, 0, 0, index)));
    prev = record.hash;
    return { id: `${index + 1}-0`, raw: JSON.stringify(record) };
  });
}
const headOf = (records: StoredAuditRecord[], anchor = '') => {
  const last = records[records.length - 1]!;
  return { id: last.id, hash: (JSON.parse(last.raw) as { hash: string }).hash, anchor };
};

describe('verifyAuditChain', () => {
  it('accepts an intact chain, and an empty one', () => {
    const records = chain(['source.fetch', 'source.suspend', 'source.resume']);
    expect(verifyAuditChain(records, headOf(records))).toEqual({ ok: true, checked: 3 });
    expect(verifyAuditChain([], undefined)).toEqual({ ok: true, checked: 0 });
  });

  it('names an edited record', () => {
    const records = chain(['source.fetch', 'source.suspend', 'source.resume']);
    const head = headOf(records);
    records[1] = { id: '2-0', raw: records[1]!.raw.replace('source.suspend', 'source.fetch') };
    expect(verifyAuditChain(records, head)).toMatchObject({ ok: false, checked: 1, broken: { id: '2-0', reason: expect.stringContaining('was edited') } });
  });

  it('names the record after a deleted one, and a deleted newest or oldest record', () => {
    const records = chain(['a.one', 'a.two', 'a.three']);
    const head = headOf(records);
    expect(verifyAuditChain([records[0]!, records[2]!], head)).toMatchObject({ ok: false, broken: { id: '3-0', reason: expect.stringContaining('between record 1-0 and record 3-0') } });
    expect(verifyAuditChain(records.slice(0, 2), head)).toMatchObject({ ok: false, broken: { id: '3-0', reason: expect.stringContaining('newest record 3-0') } });
    expect(verifyAuditChain(records.slice(1), head)).toMatchObject({ ok: false, broken: { id: '2-0' } });
    // Trimmed by the stream's bound: the anchor says where the kept chain starts.
    const anchor = (JSON.parse(records[0]!.raw) as { hash: string }).hash;
    expect(verifyAuditChain(records.slice(1), { ...head, anchor })).toEqual({ ok: true, checked: 2 });
  });
});
