import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { jsonRecordOf, textOf, type RedisClient } from '@tidemark/contracts';
import type { AuditLog } from '@tidemark/status-store';
import { signOnRefusedPage } from '../pages/login-page';
import { recordSignIn } from './sign-in-audit';
import { safeNext } from './login-routes';
import type { OidcClient } from './oidc-client';
import { grantFor, groupsOf, nameOf, type OidcSettings } from './oidc-settings';
import { readCookie, sessionCookieName, signOnMarkerCookie } from './session-cookie';
import type { SessionStore } from './session-store';

/** The cookie that binds a sign-in in progress to the browser that started it. */
export const signOnFlowCookie = 'tidemark_sign_on_flow';
/** A browser that signed on once: when its session is gone, it is sent back to the provider. */
export { signOnMarkerCookie } from './session-cookie';

export interface OidcRoutesOptions {
  oidc: OidcClient;
  settings: OidcSettings;
  sessions: SessionStore;
  redis: RedisClient;
  /** The deployment's key prefix: flows are `<prefix>:sign-on-flow:<sha256 of the cookie>`. */
  keyPrefix: string;
  audit: AuditLog;
  secureCookies: boolean;
}

/** Refusal is a sign-on that did not let someone in: the status, the page's words, the trail's reason. */
interface Refusal { status: number; message: string; reason: string; who?: { name: string; groups: string[] } }

interface Flow { state: string; nonce: string; codeVerifier: string; next: string }

// A sign-in must come back from the provider within this time.
const flowSeconds = 600;

/**
 * oidcRoutes: single sign-on. /auth/oidc/login sends the browser to the provider with state,
 * nonce and a PKCE challenge, whose secrets stay in Redis under a one-use flow bound to a cookie;
 * /auth/oidc/callback redeems the code, checks everything, and opens a session whose role and
 * scope the user's groups give. Every refusal is a page that says why, and an audit record.
 */
export async function oidcRoutes(app: FastifyInstance, options: OidcRoutesOptions): Promise<void> {
  const { oidc, settings, sessions, redis, keyPrefix, secureCookies } = options;
  const secure = secureCookies ? '; Secure' : '';
  const flowKey = (id: string) => `${keyPrefix}:sign-on-flow:${createHash('sha256').update(id).digest('hex')}`;

  app.get<{ Querystring: { next?: string } }>('/auth/oidc/login', {
    schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
  }, async (request, reply) => {
    let login;
    try {
      login = await oidc.startLogin();
    } catch (error) {
      request.log.error({ err: (error as Error).message }, 'sign-on: the OpenID provider could not be reached');
      return refuse(request, reply, { status: 503, message: 'The identity provider could not be reached; try again in a moment.', reason: 'provider unreachable' });
    }
    const id = randomBytes(32).toString('base64url');
    const flow: Flow = { state: login.state, nonce: login.nonce, codeVerifier: login.codeVerifier, next: safeNext(request.query.next) };
    await redis.set(flowKey(id), JSON.stringify(flow), 'EX', flowSeconds);
    return reply.header('set-cookie', `${signOnFlowCookie}=${id}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${flowSeconds}${secure}`)
      .header('cache-control', 'no-store').redirect(login.url.href, 303);
  });

  app.get('/auth/oidc/callback', { schema: { hide: true } }, async (request, reply) => {
    // The flow is used once, whatever comes of it: its cookie goes now (fastify adds later cookies to this one).
    reply.header('set-cookie', `${signOnFlowCookie}=; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);
    const id = readCookie(request.headers.cookie, signOnFlowCookie);
    // One use: a replayed callback finds no flow.
    const text = id && id.length <= 128 ? await redis.getdel(flowKey(id)) : null;
    const flow = text ? parseFlow(text) : undefined;
    if (!flow) return refuse(request, reply, { status: 400, message: 'This sign-in was not started in this browser, or took longer than ten minutes; start again.', reason: 'no sign-in in progress' });
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    let claims;
    try {
      claims = await oidc.finishLogin(query, flow);
    } catch (error) {
      // Not counted by the sign-in throttle: a callback guesses nothing (the code is single-use and
      // bound to this flow's PKCE verifier), and counting it would let one client lock out an address.
      const reason = reasonOf(error);
      return refuse(request, reply, { status: 403, message: `The identity provider's answer was refused: ${reason}.`, reason });
    }
    const name = nameOf(claims, settings.nameClaim);
    const groups = groupsOf(claims, settings.groupsClaim);
    const verdict = grantFor(claims, settings);
    if ('refused' in verdict) return refuse(request, reply, { status: 403, message: verdict.refused, reason: 'no mapped group', who: { name, groups } });
    const { role, scope } = verdict.grant;
    const opened = await sessions.issueSignedOn({ name, role, signOn: { subject: claims.sub, groups, ...(scope ? { scope } : {}) } });
    await recordSignIn(options.audit, request, { actor: { name, role, groups, via: 'session' }, method: 'oidc', status: 303 });
    return reply.header('set-cookie', [
      `${sessionCookieName}=${opened.id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${sessions.maxAgeSeconds}${secure}`,
      `${signOnMarkerCookie}=1; Path=/; HttpOnly; SameSite=Lax; Max-Age=${30 * 86_400}${secure}`,
    ]).redirect(flow.next, 303);
  });

  // What `tidemark login` needs to sign in: the provider and the CLI's client; 404 when the CLI has none.
  app.get('/auth/oidc/cli', { schema: { hide: true } }, async (_request, reply) => {
    if (!settings.cliClientId) return reply.status(404).send({ code: 'NotFound', message: 'This dashboard names no client for the CLI (cliClientId).' });
    return { issuer: settings.issuer, clientId: settings.cliClientId, scopes: settings.scopes };
  });

  async function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): Promise<FastifyReply> {
    const { status, message, reason, who } = refusal;
    await recordSignIn(options.audit, request, { actor: who ? { ...who, via: 'session' } : { name: 'anonymous', via: 'anonymous' }, method: 'oidc', status, reason });
    request.log.warn({ client: request.ip, reason, ...(who ? { name: who.name } : {}) }, 'sign-on refused');
    return reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(signOnRefusedPage(message).value);
  }
}

/**
 * reasonOf turns a failed check into words for the page and the trail: the message of the check
 * that failed (openid-client wraps oauth4webapi's, which names the claim: state, nonce, aud, exp,
 * the signature), never a token.
 */
function reasonOf(error: unknown): string {
  const { code, error: providerError, message, cause } = error as { code?: string; error?: string; message?: string; cause?: { message?: unknown } };
  if (providerError) return `the provider answered ${providerError.slice(0, 100)}`;
  const detail = typeof cause?.message === 'string' ? cause.message : message ?? 'invalid answer';
  const text = detail.replace(/\s+/g, ' ').slice(0, 200);
  return code ? `${text} (${code})` : text;
}

/** parseFlow reads a stored sign-in flow into a new object (its redirect checked again); undefined for anything that is not one. */
function parseFlow(text: string): Flow | undefined {
  const value = jsonRecordOf(text);
  const state = textOf(value?.state, 256);
  const nonce = textOf(value?.nonce, 256);
  const codeVerifier = textOf(value?.codeVerifier, 256);
  const next = textOf(value?.next, 8192);
  return state === undefined || nonce === undefined || codeVerifier === undefined || next === undefined ? undefined : { state, nonce, codeVerifier, next: safeNext(next) };
}
