// Hole 6: sessions are server-side and revocable. A copied cookie dies at sign-out; a token that
// is removed or changed ends its sessions, whether the list is reloaded or the dashboard restarts.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildDashboard } from '../../apps/dashboard/src/build-app';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let fixture: DashboardFixture;
const secret = 'a-test-session-secret-of-32-characters-or-more';
const tokens = [{ name: 'vera', role: 'viewer' as const, token: viewerToken }, { name: 'otto', role: 'operator' as const, token: operatorToken }];

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
});
afterAll(async () => {
  await Promise.all(subscribers.map((subscriber) => subscriber.quit().catch(() => undefined)));
  await fixture?.stop();
});

async function signIn(app: FastifyInstance, token: string): Promise<string> {
  const login = await app.inject({ method: 'POST', url: '/login', payload: `token=${encodeURIComponent(token)}&next=%2F`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(login.statusCode).toBe(303);
  return String(login.headers['set-cookie']).split(';')[0]!;
}
const sessionStatus = async (app: FastifyInstance, cookie: string) => (await app.inject({ url: '/api/session', headers: { cookie } })).statusCode;

/** restarted builds a second dashboard on the same Redis, prefix and secret, as a restart with a new tokens file would. */
const subscribers: { quit(): Promise<unknown> }[] = [];

async function restarted(withTokens: typeof tokens): Promise<FastifyInstance> {
  const subscriber = fixture.redis.duplicate();
  subscribers.push(subscriber);
  const app = await buildDashboard({
    statusStore: fixture.store, queues: fixture.queues, redis: fixture.redis, subscriber, clusters: ['shared'],
    auth: { sessionSecret: secret, tokens: withTokens },
  });
  await app.ready();
  return app;
}

describe('sessions', () => {
  it('a cookie copied before sign-out is refused after it', async () => {
    const cookie = await signIn(fixture.app, viewerToken);
    const copy = cookie;
    expect(await sessionStatus(fixture.app, cookie)).toBe(200);
    const logout = await fixture.app.inject({ method: 'POST', url: '/logout', headers: { cookie } });
    expect(logout.statusCode).toBe(303);
    expect(await sessionStatus(fixture.app, copy)).toBe(401);
  });

  it('an operator removed from the tokens file can no longer act, by reload or by restart', async () => {
    const cookie = await signIn(fixture.app, operatorToken);
    expect(await sessionStatus(fixture.app, cookie)).toBe(200);
    // Restart with a list that no longer holds otto: the old cookie is worth nothing.
    const after = await restarted(tokens.filter((token) => token.name !== 'otto'));
    try {
      expect(await sessionStatus(after, cookie)).toBe(401);
    } finally {
      await after.close();
    }
    // And a live reload ends the session at once, in Redis.
    const second = await signIn(fixture.app, operatorToken);
    expect(await fixture.app.replaceTokens(tokens.filter((token) => token.name !== 'otto'))).toBeGreaterThanOrEqual(1);
    expect(await sessionStatus(fixture.app, second)).toBe(401);
    expect((await fixture.app.inject({ url: '/api/session', headers: { authorization: `Bearer ${operatorToken}` } })).statusCode).toBe(401);
    await fixture.app.replaceTokens(tokens);
  });

  it('a changed token or role ends the sessions opened with the old one', async () => {
    const cookie = await signIn(fixture.app, viewerToken);
    await fixture.app.replaceTokens([{ ...tokens[0]!, token: 'a-brand-new-viewer-token-0123456789' }, tokens[1]!]);
    expect(await sessionStatus(fixture.app, cookie)).toBe(401);
    await fixture.app.replaceTokens(tokens);
    const again = await signIn(fixture.app, operatorToken);
    const demoted = await restarted([tokens[0]!, { ...tokens[1]!, role: 'viewer' }]);
    try {
      expect(await sessionStatus(demoted, again)).toBe(401);
    } finally {
      await demoted.close();
    }
  });

  it('Redis holds neither the cookie value nor the token', async () => {
    const cookie = await signIn(fixture.app, operatorToken);
    const id = cookie.slice(cookie.indexOf('=') + 1);
    const keys = await fixture.redis.keys(`${fixture.prefix}:dashboard-*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const type = await fixture.redis.type(key);
      const values = type === 'string' ? [await fixture.redis.get(key)] : await fixture.redis.smembers(key);
      for (const text of [key, ...values]) {
        expect(text).not.toContain(id);
        expect(text).not.toContain(operatorToken);
      }
    }
  });

  it('an operator\'s session record copied in Redis under the hash of a new id does not sign that id in, and is deleted', async () => {
    const cookie = await signIn(fixture.app, operatorToken);
    const id = cookie.slice(cookie.indexOf('=') + 1);
    const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
    const record = await fixture.redis.get(`${fixture.prefix}:dashboard-session:${sha256(id)}`);
    expect(record).toBeTruthy();
    // What whoever may write Redis does: mint an id, store the operator's record under its hash.
    const minted = randomBytes(32).toString('base64url');
    const copiedKey = `${fixture.prefix}:dashboard-session:${sha256(minted)}`;
    await fixture.redis.set(copiedKey, record!, 'PX', 60_000);
    expect(await sessionStatus(fixture.app, `tidemark_session=${minted}`)).toBe(401);
    const act = await fixture.app.inject({ method: 'POST', url: '/api/sources/any/suspend', headers: { cookie: `tidemark_session=${minted}`, 'x-csrf-token': (JSON.parse(record!) as { csrf: string }).csrf } });
    expect(act.statusCode).toBe(401);
    expect(await fixture.redis.exists(copiedKey)).toBe(0);
    // The original session is untouched.
    expect(await sessionStatus(fixture.app, cookie)).toBe(200);
  });

  it('a malformed cookie gets 401, not 500', async () => {
    for (const cookie of ['tidemark_session=%E0%A4%A', 'tidemark_session=%', `tidemark_session=${'x'.repeat(5000)}`]) {
      const response = await fixture.app.inject({ url: '/api/session', headers: { cookie } });
      expect(response.statusCode, cookie).toBe(401);
      expect(response.json()).toMatchObject({ code: 'Unauthenticated' });
    }
  });
});
