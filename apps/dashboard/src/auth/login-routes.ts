import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { loginPage } from '../pages/login-page';
import { sessionCookieName, type SessionCodec } from './session-cookie';
import type { TokenIndex } from './token-index';

export interface LoginRoutesOptions {
  tokens: TokenIndex;
  sessions: SessionCodec;
  secureCookies: boolean;
}

/** safeNext keeps redirects after sign-in on this site: a local path, never `//host`. */
export function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** loginRoutes: the sign-in form (token → session cookie) and sign-out. They need no session. */
export async function loginRoutes(app: FastifyInstance, { tokens, sessions, secureCookies }: LoginRoutesOptions): Promise<void> {
  // Lax, not Strict: a link to a dashboard page from chat or mail must open signed in. Cross-site
  // posts still carry no cookie under Lax, and every action checks the CSRF token besides.
  const cookie = (value: string, maxAge: number) =>
    `${sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secureCookies ? '; Secure' : ''}`;

  app.get<{ Querystring: { next?: string; failed?: string } }>('/login', {
    schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })), failed: Type.Optional(Type.String({ maxLength: 1 })) }) },
  }, async (request, reply) => reply.type('text/html; charset=utf-8').send(loginPage(safeNext(request.query.next), request.query.failed === '1').value));

  app.post<{ Body: { token: string; next?: string } }>('/login', {
    schema: { hide: true, body: Type.Object({ token: Type.String({ maxLength: 512 }), next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
  }, async (request, reply) => {
    const found = tokens.find(request.body.token);
    const next = safeNext(request.body.next);
    if (!found) return reply.redirect(`/login?failed=1&next=${encodeURIComponent(next)}`, 303);
    const { value } = sessions.issue(found.name, found.role);
    return reply.header('set-cookie', cookie(value, sessions.maxAgeSeconds)).redirect(next, 303);
  });

  // Sign-out only clears our cookie; a forged sign-out is harmless, so it needs no CSRF check.
  app.post('/logout', { schema: { hide: true } }, async (_request, reply) => {
    return reply.header('set-cookie', cookie('', 0)).redirect('/login', 303);
  });
}
