import { describe, expect, it } from 'vitest';
import { readCookie, SessionCodec } from './session-cookie';

describe('SessionCodec', () => {
  const codec = new SessionCodec('x'.repeat(32), 1000);

  it('verifies what it issued, with a CSRF token per session', () => {
    const { value, session } = codec.issue('ann', 'operator', 0);
    expect(codec.verify(value, 10)).toEqual(session);
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(codec.issue('ann', 'operator', 0).session.csrf).not.toBe(session.csrf);
  });

  it('refuses expired, tampered, garbled and foreign cookies', () => {
    const { value } = codec.issue('ann', 'viewer', 0);
    expect(codec.verify(value, 1000)).toBeUndefined();
    const [payload, signature] = value.split('.') as [string, string];
    const promoted = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('viewer', 'operator')).toString('base64url');
    expect(codec.verify(`${promoted}.${signature}`, 10)).toBeUndefined();
    expect(codec.verify('garbage', 10)).toBeUndefined();
    expect(codec.verify(`${payload}.`, 10)).toBeUndefined();
    expect(new SessionCodec('y'.repeat(32)).verify(value, 10)).toBeUndefined();
  });

  it('reads one cookie from a header', () => {
    expect(readCookie('a=1; tidemark_session=abc.def; b=2', 'tidemark_session')).toBe('abc.def');
    expect(readCookie('a=1', 'tidemark_session')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
