import { describe, expect, it } from 'vitest';
import { parseFailureRecord, parseReconcileJob, parseStalledMarker } from './object-records';

// The queue's per-object records read hostile content: anyone who can write Redis can write them.

const time = '2026-12-06T08:00:00.000Z';
const revision = 'a'.repeat(40);
const huge = 'x'.repeat(70_000);
const withProto = (fields: Record<string, unknown>) => `{"__proto__":{"polluted":true},${JSON.stringify(fields).slice(1)}`;
const hasOwnProto = (value: unknown) => value !== undefined && Object.prototype.hasOwnProperty.call(value, '__proto__');
const unreadable: Array<[string, string | null]> = [['a missing record', null], ['text that is not JSON', '{"a":'], ['JSON null', 'null'], ['a JSON array', '[]'], ['a JSON number', '1']];

describe('parseReconcileJob', () => {
  const job = { source: 'apps', revision, cluster: 'prod', objectKey: 'core/ConfigMap/ns/a', reason: 'git-change' };

  it.each([...unreadable,
    ['a reason it does not know', JSON.stringify({ ...job, reason: 'because' })],
    ['a revision that is not one', JSON.stringify({ ...job, revision: 'main' })],
    ['an unknown field', JSON.stringify({ ...job, body: 'kind: Secret' })],
    ['a __proto__ key', withProto(job)],
    ['an oversized object key', JSON.stringify({ ...job, objectKey: huge })],
  ])('drops %s', (_name, raw) => {
    expect(parseReconcileJob(raw)).toBeUndefined();
  });

  it.each([
    ['a job as the queue keeps it', JSON.stringify(job), job],
    ['a traceparent that is not one, dropped (trace context is advice)', JSON.stringify({ ...job, traceparent: 'nonsense' }), job],
  ])('reads %s', (_name, raw, want) => {
    expect(parseReconcileJob(raw)).toEqual(want);
  });
});

describe('parseStalledMarker', () => {
  const marker = { revision, code: 'InvalidManifest', message: 'spec.replicas must be a number', at: time };

  it.each([...unreadable,
    ['no code', JSON.stringify({ ...marker, code: undefined })],
    ['a message that is a number', JSON.stringify({ ...marker, message: 1 })],
    ['an oversized message', JSON.stringify({ ...marker, message: huge })],
  ])('drops %s', (_name, raw) => {
    expect(parseStalledMarker(raw)).toBeUndefined();
  });

  it('reads a marker, leaving a __proto__ key and unknown fields behind', () => {
    const parsed = parseStalledMarker(withProto({ ...marker, injected: true }));
    expect(parsed).toEqual(marker);
    expect(hasOwnProto(parsed)).toBe(false);
  });
});

describe('parseFailureRecord', () => {
  const failure = { objectKey: 'core/ConfigMap/ns/a', revision, failures: 3, code: 'ApplyFailed', message: 'conflict', terminal: false, category: 'transient', at: time };

  it.each([...unreadable,
    ['a failure count as text', JSON.stringify({ ...failure, failures: '3' })],
    ['a fractional failure count', JSON.stringify({ ...failure, failures: 1.5 })],
    ['an infinite failure count', JSON.stringify(failure).replace('"failures":3', '"failures":1e400')],
    ['no object key', JSON.stringify({ ...failure, objectKey: undefined })],
  ])('drops %s', (_name, raw) => {
    expect(parseFailureRecord(raw)).toBeUndefined();
  });

  it.each([
    ['a record as the worker writes it', JSON.stringify(failure), failure],
    ['an old record without a category', JSON.stringify({ ...failure, category: undefined }), { ...failure, category: undefined }],
    ['a category it does not know, terminal as text, a __proto__ key', withProto({ ...failure, category: 'cosmic', terminal: 'true' }), { ...failure, category: undefined, terminal: false }],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parseFailureRecord(raw);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(want)));
    expect(hasOwnProto(parsed)).toBe(false);
  });
});
