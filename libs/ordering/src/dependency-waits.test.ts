import { describe, expect, it } from 'vitest';
import { parseWaiter } from './dependency-waits';

// A stored waiter is hostile input: one that could not be a job is skipped, so it cannot fail a wake.

const revision = 'a'.repeat(40);

describe('parseWaiter', () => {
  it.each([
    ['a waiter as register writes it', '{"source":"apps","objectKey":"core/ConfigMap/ns/a"}', revision, { source: 'apps', objectKey: 'core/ConfigMap/ns/a', revision }],
    ['a __proto__ key and an unknown field', '{"__proto__":{"x":1},"source":"apps","objectKey":"k","cluster":"other"}', revision, { source: 'apps', objectKey: 'k', revision }],
    ['a revision that is not one', '{"source":"apps","objectKey":"k"}', 'main', undefined],
    ['a source that is a number', '{"source":1,"objectKey":"k"}', revision, undefined],
    ['an oversized object key', JSON.stringify({ source: 'apps', objectKey: 'k'.repeat(1025) }), revision, undefined],
    ['text that is not JSON', 'apps/k', revision, undefined],
    ['JSON null', 'null', revision, undefined],
  ])('%s', (_name, member, stored, want) => {
    const parsed = parseWaiter(member, stored);
    expect(parsed).toEqual(want);
    expect(parsed !== undefined && Object.prototype.hasOwnProperty.call(parsed, '__proto__')).toBe(false);
  });
});
