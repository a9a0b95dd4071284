import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { dropTraceparent, ReconcileJob } from './job';
import { formatTraceparent, parseTraceparent } from './traceparent';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const valid = `00-${traceId}-${spanId}-01`;
const job = { source: 'apps', revision: 'a'.repeat(40), cluster: 'prod', objectKey: 'v1/ConfigMap/default/one', reason: 'git-change' };

describe('parseTraceparent', () => {
  it('reads a version-00 header and its sampled flag, and writes it back the same', () => {
    expect(parseTraceparent(valid)).toEqual({ traceId, spanId, sampled: true });
    expect(parseTraceparent(`00-${traceId}-${spanId}-00`)).toEqual({ traceId, spanId, sampled: false });
    // Other flag bits are kept out of the sampled decision.
    expect(parseTraceparent(`00-${traceId}-${spanId}-02`)?.sampled).toBe(false);
    expect(formatTraceparent(parseTraceparent(valid)!)).toBe(valid);
  });

  it.each([
    ['not a string', 42],
    ['an object', { traceId, spanId }],
    ['empty', ''],
    ['oversized', `${valid}${'0'.repeat(100_000)}`],
    ['with a trailing field (a future version may add one; 00 may not)', `${valid}-00`],
    ['with surrounding space', ` ${valid}`],
    ['with a newline after it', `${valid}\n`],
    ['uppercase hex (spelled two ways)', valid.toUpperCase()],
    ['version ff', `ff-${traceId}-${spanId}-01`],
    ['another version', `01-${traceId}-${spanId}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${spanId}-01`],
    ['an all-zero span id', `00-${traceId}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${traceId.slice(1)}-${spanId}-01`],
    ['non-hex', `00-${traceId.slice(0, 31)}g-${spanId}-01`],
    ['another separator', valid.replaceAll('-', '_')],
  ])('refuses %s', (_label, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('the job contract', () => {
  it('takes a valid traceparent, and a job without one', () => {
    expect(Value.Check(ReconcileJob, { ...job, traceparent: valid })).toBe(true);
    expect(Value.Check(ReconcileJob, job)).toBe(true);
  });

  it('refuses a job whose traceparent is not one, so no producer writes it', () => {
    expect(Value.Check(ReconcileJob, { ...job, traceparent: valid.toUpperCase() })).toBe(false);
    expect(Value.Check(ReconcileJob, { ...job, traceparent: `${valid}${'0'.repeat(4096)}` })).toBe(false);
    expect(Value.Check(ReconcileJob, { ...job, traceparent: 7 })).toBe(false);
  });

  it('dropTraceparent removes a bad one read from Redis, and keeps the job', () => {
    for (const bad of [valid.toUpperCase(), `00-${'0'.repeat(32)}-${spanId}-01`, 'x'.repeat(1_000_000), null, { traceId }]) {
      const kept = dropTraceparent({ ...job, traceparent: bad });
      expect(kept).toEqual(job);
      expect(Value.Check(ReconcileJob, kept)).toBe(true);
    }
    expect(dropTraceparent({ ...job, traceparent: valid })).toEqual({ ...job, traceparent: valid });
    // Not a job at all: left for the job check to refuse.
    expect(dropTraceparent('nope')).toBe('nope');
    expect(dropTraceparent(null)).toBe(null);
  });
});
