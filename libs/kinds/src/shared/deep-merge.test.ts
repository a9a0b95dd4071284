import { describe, expect, it } from 'vitest';
import { deepMerge } from './deep-merge';

describe('deepMerge', () => {
  it('merges objects key by key, the patch winning', () => {
    expect(deepMerge({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 20 }, e: 5 })).toEqual({ a: 1, b: { c: 20, d: 3 }, e: 5 });
  });

  it('deletes a field set to null, also nested', () => {
    expect(deepMerge({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { d: null } })).toEqual({ b: { c: 2 } });
  });

  it('drops nulls inside fields that did not exist', () => {
    expect(deepMerge({}, { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
  });

  it('merges lists of named items by name, keeping order and appending new items', () => {
    const base = { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] };
    expect(deepMerge(base, { env: [{ name: 'B', value: '20' }, { name: 'C', value: '3' }] })).toEqual({
      env: [{ name: 'A', value: '1' }, { name: 'B', value: '20' }, { name: 'C', value: '3' }],
    });
  });

  it('merges inside a named item, so a null deletes a field of one container', () => {
    const base = { containers: [{ name: 'app', image: 'web', resources: { limits: { cpu: '1' } } }] };
    expect(deepMerge(base, { containers: [{ name: 'app', resources: null }] })).toEqual({ containers: [{ name: 'app', image: 'web' }] });
  });

  it('replaces lists without names, and an empty list clears', () => {
    expect(deepMerge({ args: ['a', 'b'] }, { args: ['c'] })).toEqual({ args: ['c'] });
    expect(deepMerge({ env: [{ name: 'A' }] }, { env: [] })).toEqual({ env: [] });
  });

  it('replaces a value of another type', () => {
    expect(deepMerge({ port: { name: 'http' } }, { port: 8080 })).toEqual({ port: 8080 });
  });

  it('leaves both inputs untouched', () => {
    const base = { a: { b: 1 }, list: [{ name: 'x', v: 1 }] };
    const patch = { a: { b: 2 }, list: [{ name: 'x', v: 2 }] };
    deepMerge(base, patch);
    expect(base).toEqual({ a: { b: 1 }, list: [{ name: 'x', v: 1 }] });
    expect(patch).toEqual({ a: { b: 2 }, list: [{ name: 'x', v: 2 }] });
  });
});
