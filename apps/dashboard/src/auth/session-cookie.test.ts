import { describe, expect, it } from 'vitest';
import { readCookie } from './session-cookie';

describe('readCookie', () => {
  it('reads one cookie from a header', () => {
    expect(readCookie('a=1; tidemark_session=abc.def; b=2', 'tidemark_session')).toBe('abc.def');
    expect(readCookie('a=1', 'tidemark_session')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });

  it('treats a malformed percent-encoding as no cookie, not as an error', () => {
    expect(readCookie('tidemark_session=%E0%A4%A', 'tidemark_session')).toBeUndefined();
  });
});
