import { describe, expect, it } from 'vitest';
import { parsePruneHold } from './prune-holds';
import { parseLiveChildren, parseReconcileRecord } from './stored-lists';

// The status store's lists and holds read hostile content: anyone who can write Redis can write them.

const time = '2026-12-06T08:00:00.000Z';
const revision = 'a'.repeat(40);
const huge = 'x'.repeat(70_000);
const withProto = (fields: Record<string, unknown>) => `{"__proto__":{"polluted":true},${JSON.stringify(fields).slice(1)}`;
const hasOwnProto = (value: unknown) => value !== undefined && Object.prototype.hasOwnProperty.call(value, '__proto__');
const unreadable: Array<[string, string | null]> = [['a missing entry', null], ['text that is not JSON', '{"a":'], ['JSON null', 'null'], ['a JSON array', '[]'], ['a JSON string', '"x"']];

describe('parseReconcileRecord', () => {
  const run = { revision, startedAt: time, durationMs: 812, result: 'succeeded', stage: 'apply', message: 'applied 2 objects', changes: { created: 1, configured: 1, unchanged: 3, deleted: 0 }, repeats: 2, lastAt: time, traceId: 'b'.repeat(32) };

  it.each([...unreadable,
    ['a result it does not know', JSON.stringify({ ...run, result: 'exploded' })],
    ['no revision', JSON.stringify({ ...run, revision: undefined })],
    ['an oversized revision', JSON.stringify({ ...run, revision: huge })],
    ['a start time that is a number', JSON.stringify({ ...run, startedAt: 1 })],
  ])('drops %s', (_name, raw) => {
    expect(parseReconcileRecord(raw)).toBeUndefined();
  });

  it.each([
    ['a run as the store writes it', JSON.stringify(run), run],
    ['a __proto__ key and unknown fields', withProto({ ...run, injected: true }), run],
    ['fields of the wrong type, dropped one by one', JSON.stringify({ ...run, durationMs: '812', message: huge, repeats: -2, traceId: huge, changes: { created: 'one', deleted: 2 } }),
      { revision, startedAt: time, durationMs: 0, result: 'succeeded', stage: 'apply', changes: { created: 0, configured: 0, unchanged: 0, deleted: 2 }, lastAt: time }],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parseReconcileRecord(raw);
    expect(parsed).toEqual(want);
    expect(hasOwnProto(parsed)).toBe(false);
  });
});

describe('parseLiveChildren', () => {
  const child = { kind: 'Pod', namespace: 'ns', name: 'web-1', uid: 'u1', ownerUid: 'u0', health: 'Ready', message: 'Running, 1/1 ready' };

  it.each([
    ['children as the tree watch writes them', JSON.stringify([child]), [child]],
    ['an object instead of a list', JSON.stringify(child), []],
    ['text that is not JSON', '[{', []],
    ['a health it does not know, and a child that is a string', JSON.stringify([{ ...child, health: 'Great' }, 'Pod/ns/web-2', child]), [child]],
    ['an oversized name', JSON.stringify([{ ...child, name: huge }]), []],
    ['a __proto__ key and unknown fields', `[${withProto({ ...child, injected: 1 })}]`, [child]],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parseLiveChildren(raw);
    expect(parsed).toEqual(want);
    expect(parsed.some(hasOwnProto)).toBe(false);
  });
});

describe('parsePruneHold', () => {
  const hold = { source: 'apps', cluster: 'prod', revision, removed: ['core/ConfigMap/ns/a'], total: 10, threshold: 0.5, state: 'waiting', decidedAt: time };

  it.each([...unreadable,
    ['removed objects that are not a list (an empty list after Lua)', JSON.stringify({ ...hold, removed: {} })],
    ['a state it does not know', JSON.stringify({ ...hold, state: 'ignored' })],
    ['a total as text', JSON.stringify({ ...hold, total: '10' })],
    ['no decision time', JSON.stringify({ ...hold, decidedAt: undefined })],
    ['an oversized source', JSON.stringify({ ...hold, source: huge })],
  ])('drops %s', (_name, raw) => {
    expect(parsePruneHold(raw)).toBeUndefined();
  });

  it.each([
    ['a hold as the pipeline writes it', JSON.stringify(hold), hold],
    ['a confirmed hold', JSON.stringify({ ...hold, state: 'confirmed', confirmedBy: 'alice', confirmedAt: time }), { ...hold, state: 'confirmed', confirmedBy: 'alice', confirmedAt: time }],
    ['removed entries that are not object keys, a __proto__ key', withProto({ ...hold, removed: ['core/ConfigMap/ns/a', 7, { x: 1 }], confirmedBy: 5 }), hold],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parsePruneHold(raw);
    expect(parsed).toEqual(want);
    expect(hasOwnProto(parsed)).toBe(false);
  });
});
