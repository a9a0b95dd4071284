import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from './principal';

/** Session is what the signed cookie carries: no token, only who and until when. */
export interface Session {
  name: string;
  role: Role;
  /** Per-session CSRF token, echoed by forms and by JSON requests in a header. */
  csrf: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

export const sessionCookieName = 'tidemark_session';

/** SessionCodec signs and verifies session cookies with HMAC-SHA256. */
export class SessionCodec {
  constructor(private readonly secret: string, private readonly lifetimeMs = 12 * 3600_000) {}

  issue(name: string, role: Role, now = Date.now()): { value: string; session: Session } {
    const session: Session = { name, role, csrf: randomBytes(24).toString('base64url'), exp: now + this.lifetimeMs };
    const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
    return { value: `${payload}.${this.sign(payload)}`, session };
  }

  /** verify returns the session of a cookie value, or undefined if it is forged, garbled or expired. */
  verify(value: string, now = Date.now()): Session | undefined {
    const dot = value.indexOf('.');
    if (dot <= 0 || value.length > 4096) return undefined;
    const payload = value.slice(0, dot);
    if (!sameText(value.slice(dot + 1), this.sign(payload))) return undefined;
    const session = parseSession(Buffer.from(payload, 'base64url').toString('utf8'));
    return session && session.exp > now ? session : undefined;
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}

/** sameText compares two strings in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function parseSession(text: string): Session | undefined {
  try {
    const value = JSON.parse(text) as Partial<Session>;
    const valid = typeof value.name === 'string' && (value.role === 'viewer' || value.role === 'operator')
      && typeof value.csrf === 'string' && typeof value.exp === 'number';
    return valid ? (value as Session) : undefined;
  } catch {
    return undefined;
  }
}

/** readCookie returns one cookie's value from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}
