import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfInvalid, forbidden, tooManyAttempts, unauthenticated } from '../api/dashboard-error';
import { throttleKey, type LoginThrottle } from './login-throttle';
import { mayAct, type Principal } from './principal';
import { readCookie, sameText, sessionCookieName } from './session-cookie';
import type { SessionStore } from './session-store';
import type { TokenIndex } from './token-index';
import type { OidcBearer } from './oidc-bearer';
import { signOnMarkerCookie } from './session-cookie';

/** csrfHeader carries the session's CSRF token on JSON requests made from our pages. */
export const csrfHeader = 'x-csrf-token';

/** AuthenticateOptions are what a request's principal is found with. */
export interface AuthenticateOptions {
  tokens: TokenIndex;
  sessions: SessionStore;
  /** Failed bearer tokens count here per client address, like failed sign-ins. */
  throttle: LoginThrottle;
  /** ID tokens from `tidemark login`, when single sign-on names the CLI's client. */
  oidcBearer?: OidcBearer;
  /** Single sign-on is configured: a browser that signed on before goes back to the provider. */
  signOn?: boolean;
}

/**
 * principalOf finds who sent a request: a bearer token first, then the session cookie. Bearer
 * tokens are throttled like sign-ins: a client address with too many failures is refused (429)
 * whatever token it sends next, right or wrong, so /api/* is no oracle for guessing tokens.
 * A success does not reset the count (a viewer's token must not buy more guesses at an operator's).
 */
export async function principalOf(request: FastifyRequest, reply: FastifyReply, options: AuthenticateOptions): Promise<Principal | undefined> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) return bearerPrincipal(request, reply, authorization, options);
  const cookie = readCookie(request.headers.cookie, sessionCookieName);
  const session = cookie ? await options.sessions.verify(cookie) : undefined;
  if (!session) return undefined;
  if (session.signOn) {
    const { scope, groups } = session.signOn;
    return { name: session.name, role: session.role, via: 'session', csrf: session.csrf, groups, ...(scope ? { scope } : {}) };
  }
  const scope = options.tokens.scopeOf(session.name);
  return { name: session.name, role: session.role, via: 'session', csrf: session.csrf, ...(scope ? { scope } : {}) };
}

/** bearerPrincipal: a static token, else an ID token from `tidemark login`; any other is a counted failure. */
async function bearerPrincipal(request: FastifyRequest, reply: FastifyReply, authorization: string, options: AuthenticateOptions): Promise<Principal | undefined> {
  const { tokens, throttle, oidcBearer } = options;
  const client = throttleKey(request.ip);
  const wait = await throttle.blockedFor(client);
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    throw tooManyAttempts(wait);
  }
  // A wrong bearer token is refused even if a valid cookie came along: no silent fallback.
  const presented = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const found = presented ? tokens.find(presented) : undefined;
  if (found) return { ...found, via: 'bearer' };
  const signedOn = presented && oidcBearer ? await oidcBearer.verify(presented) : undefined;
  if (signedOn && 'principal' in signedOn) return signedOn.principal;
  await throttle.failed(client);
  request.log.warn({ client: request.ip, ...(signedOn ? { reason: signedOn.refused } : {}) }, signedOn ? 'bearer token refused: ID token' : 'bearer token refused: unknown token');
  return undefined;
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
    // An expired single sign-on session goes back to the provider, which may sign in again at once.
    const backToProvider = options.signOn === true && readCookie(request.headers.cookie, signOnMarkerCookie) !== undefined;
    await reply.redirect(`${backToProvider ? '/auth/oidc/login' : '/login'}?next=${encodeURIComponent(request.url)}`, 303);
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
  if (!mayAct(principal)) throw forbidden();
}
