import { timingSafeEqual } from 'node:crypto';

/** The cookie that carries a session id; the session itself is kept in Redis (SessionStore). */
export const sessionCookieName = 'tidemark_session';

/** sameText compares two strings in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** readCookie returns one cookie's value from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookieValue(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** decodeCookieValue undoes percent-encoding; a malformed value is no value (a 401, not a 500). */
function decodeCookieValue(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The cookie that says this browser signed on through the provider, so an ended session goes back to it. */
export const signOnMarkerCookie = 'tidemark_sign_on';
