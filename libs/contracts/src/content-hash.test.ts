import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash } from './content-hash';
import { stableStringify } from './stable-stringify';

describe('stableStringify', () => {
  it('sorts keys at every depth and keeps list order', () => {
    expect(stableStringify({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
  });

  it('drops undefined fields as JSON does', () => {
    expect(stableStringify({ a: undefined, b: null })).toBe('{"b":null}');
  });
});

describe('contentHash', () => {
  it('is the sha256 of the stable form', () => {
    expect(contentHash({ b: '2', a: '1' })).toBe(createHash('sha256').update('{"a":"1","b":"2"}').digest('hex'));
  });

  it('hashes text as UTF-8, as before (a stored hash must not change)', () => {
    expect(contentHash({ greeting: 'grüße, 世界' })).toBe(createHash('sha256').update('{"greeting":"grüße, 世界"}', 'utf8').digest('hex'));
  });

  it('ignores key order and changes with any value', () => {
    expect(contentHash({ a: '1', b: '2' })).toBe(contentHash({ b: '2', a: '1' }));
    expect(contentHash({ a: '1' })).not.toBe(contentHash({ a: '2' }));
  });
});
