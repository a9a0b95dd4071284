import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfInvalid, forbidden, tooManyAttempts, unauthenticated } from '../api/dashboard-error';
import { throttleKey, type LoginThrottle } from './login-throttle';
import type { Principal } from './principal';
import { readCookie, sameText, sessionCookieName } from './session-cookie';
import type { SessionStore } from './session-store';
import type { TokenIndex } from './token-index';

/** csrfHeader carries the session's CSRF token on JSON requests made from our pages. */
export const csrfHeader = 'x-csrf-token';

/** AuthenticateOptions are what a request's principal is found with. */
export interface AuthenticateOptions {
  tokens: TokenIndex;
  sessions: SessionStore;
  /** Failed bearer tokens count here per client address, like failed sign-ins. */
  throttle: LoginThrottle;
}

/**
 * principalOf finds who sent a request: a bearer token first, then the session cookie. Bearer
 * tokens are throttled like sign-ins: a client address with too many failures is refused (429)
 * whatever token it sends next, right or wrong, so /api/* is no oracle for guessing tokens.
 * A success does not reset the count (a viewer's token must not buy more guesses at an operator's).
 */
export async function principalOf(request: FastifyRequest, reply: FastifyReply, options: AuthenticateOptions): Promise<Principal | undefined> {
  const { tokens, sessions, throttle } = options;
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const client = throttleKey(request.ip);
    const wait = await throttle.blockedFor(client);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw tooManyAttempts(wait);
    }
    // A wrong bearer token is refused even if a valid cookie came along: no silent fallback.
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    const found = match?.[1] ? tokens.find(match[1]) : undefined;
    if (found) return { ...found, via: 'bearer' };
    await throttle.failed(client);
    request.log.warn({ client: request.ip }, 'bearer token refused: unknown token');
    return undefined;
  }
  const cookie = readCookie(request.headers.cookie, sessionCookieName);
  const session = cookie ? await sessions.verify(cookie) : undefined;
  if (!session) return undefined;
  const scope = tokens.scopeOf(session.name);
  return { name: session.name, role: session.role, via: 'session', csrf: session.csrf, ...(scope ? { scope } : {}) };
}

/** authenticate is an onRequest hook: API calls get 401, pages are sent to the login form. */
export function authenticate(options: AuthenticateOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = await principalOf(request, reply, options);
    if (principal) {
      request.principal = principal;
      return;
    }
    if (request.url.startsWith('/api/') || request.method !== 'GET') throw unauthenticated();
    await reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
  };
}

/**
 * requireOperator is a preHandler for actions: the operator role, and for cookie sessions the
 * CSRF token from the form field `_csrf` or the X-CSRF-Token header.
 */
export async function requireOperator(request: FastifyRequest): Promise<void> {
  const principal = request.principal;
  if (!principal) throw unauthenticated();
  if (principal.via === 'session') {
    const header = request.headers[csrfHeader];
    const field = (request.body as { _csrf?: unknown } | undefined)?._csrf;
    const presented = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
    if (!principal.csrf || !sameText(presented, principal.csrf)) throw csrfInvalid();
  }
  if (principal.role !== 'operator') throw forbidden();
}
