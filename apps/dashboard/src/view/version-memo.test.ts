import { describe, expect, it } from 'vitest';
import { VersionMemo } from './version-memo';

describe('VersionMemo', () => {
  it('computes once per key and version, and forgets everything when the version changes', () => {
    let version = 1;
    let computed = 0;
    const memo = new VersionMemo<string>(() => version, 2);
    const value = (key: string) => memo.getOrCompute(key, () => `${key}@${version}#${(computed += 1)}`);
    expect(value('a')).toBe('a@1#1');
    expect(value('a')).toBe('a@1#1');
    version = 2;
    expect(value('a')).toBe('a@2#2');
    // At capacity the oldest key goes first.
    value('b');
    value('c');
    expect(value('a')).toBe('a@2#5');
  });
});
