import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { loginPage } from '../pages/login-page';
import { readCookie, sessionCookieName, signOnMarkerCookie } from './session-cookie';
import type { SessionStore } from './session-store';
import { throttleKey, type LoginThrottle } from './login-throttle';
import { tooManyAttempts } from '../api/dashboard-error';
import type { AuditLog } from '@tidemark/status-store';
import { recordSignIn } from './sign-in-audit';
import type { OidcClient } from './oidc-client';

export interface LoginRoutesOptions {
  sessions: SessionStore;
  secureCookies: boolean;
  /** Failed sign-ins per client address (and claimed name), shared with bearer tokens on /api/*. */
  throttle: LoginThrottle;
  /** Sign-ins, sign-outs and refused sign-ins are recorded here. */
  audit: AuditLog;
  /** Single sign-on, when configured: the form offers it, and sign-out ends the provider's session too. */
  signOn?: OidcClient;
}

// Stands for the dashboard's own origin: `next` is resolved the way a browser resolves a
// Location header against the page, so tabs, backslashes and dot segments count as it counts them.
const ownOrigin = 'http://dashboard.tidemark.invalid';

/**
 * safeNext keeps redirects after sign-in on this site. `next` is parsed with the WHATWG URL
 * parser against our own origin; anything that lands on another origin becomes '/'. What is
 * returned is the parser's own serialisation of the path, so the browser reads what we checked.
 */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, ownOrigin);
  } catch {
    return '/';
  }
  if (url.origin !== ownOrigin) return '/';
  const local = `${url.pathname}${url.search}${url.hash}`;
  // A path that serialises as `//x` would itself be read as another host.
  return local.startsWith('//') || local.startsWith('/\\') ? '/' : local;
}

/** loginRoutes: the sign-in form (token → session cookie) and sign-out. They need no session. */
export async function loginRoutes(app: FastifyInstance, { sessions, secureCookies, throttle, audit, signOn }: LoginRoutesOptions): Promise<void> {
  // Lax, not Strict: a link to a dashboard page from chat or mail must open signed in. Cross-site
  // posts still carry no cookie under Lax, and every action checks the CSRF token besides.
  const cookie = (value: string, maxAge: number) =>
    `${sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secureCookies ? '; Secure' : ''}`;

  app.get<{ Querystring: { next?: string; failed?: string } }>('/login', {
    schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })), failed: Type.Optional(Type.String({ maxLength: 1 })) }) },
  }, async (request, reply) => reply.type('text/html; charset=utf-8').send(loginPage({ next: safeNext(request.query.next), failed: request.query.failed === '1', signOn: signOn !== undefined }).value));

  // With a name, failures count per (address, name): behind a shared address (an Ingress without
  // trusted proxies), one client's guesses lock out the names it tried, not everyone.
  app.post<{ Body: { token: string; name?: string; next?: string } }>('/login', {
    schema: { hide: true, body: Type.Object({ token: Type.String({ maxLength: 512 }), name: Type.Optional(Type.String({ maxLength: 64 })), next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
  }, async (request, reply) => {
    const name = request.body.name?.trim() || undefined;
    const client = throttleKey(request.ip, name);
    const wait = await throttle.blockedFor(client);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw tooManyAttempts(wait);
    }
    const opened = await sessions.issue(request.body.token, name === undefined ? {} : { name });
    const next = safeNext(request.body.next);
    if (!opened) {
      await throttle.failed(client);
      // Who tried, never what: the token stays out of the log.
      request.log.warn({ client: request.ip, ...(name ? { name } : {}) }, 'sign-in failed: unknown token');
      await recordSignIn(audit, request, { actor: name ? { name } : { name: 'anonymous', via: 'anonymous' }, method: 'token', status: 401, reason: 'unknown token' });
      return reply.redirect(`/login?failed=1&next=${encodeURIComponent(next)}`, 303);
    }
    // Only a named key is cleared: a right viewer token must not buy more guesses for the address.
    if (name) await throttle.succeeded(client);
    await recordSignIn(audit, request, { actor: { name: opened.session.name, role: opened.session.role, via: 'session' }, method: 'token', status: 303 });
    return reply.header('set-cookie', cookie(opened.id, sessions.maxAgeSeconds)).redirect(next, 303);
  });

  // Sign-out ends the session on the server, so a copied cookie stops working too. A forged
  // sign-out only signs someone out, so it needs no CSRF check. A single sign-on session goes on
  // to the provider's end-session endpoint, when it has one, so the provider forgets it too.
  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    const id = readCookie(request.headers.cookie, sessionCookieName);
    const session = id ? await sessions.verify(id) : undefined;
    if (id) await sessions.end(id);
    reply.header('set-cookie', [cookie('', 0), `${signOnMarkerCookie}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secureCookies ? '; Secure' : ''}`]);
    if (!session) return reply.redirect('/login', 303);
    const signOnMethod = session.signOn ? 'oidc' : 'token';
    await recordSignIn(audit, request, { actor: { name: session.name, role: session.role, via: 'session', ...(session.signOn ? { groups: session.signOn.groups } : {}) }, method: signOnMethod, status: 303, action: 'session.sign-out' });
    const endSession = session.signOn && signOn ? await signOn.endSessionUrl().catch(() => undefined) : undefined;
    return reply.redirect(endSession?.href ?? '/login', 303);
  });
}
