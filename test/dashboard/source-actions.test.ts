// Source actions (fetch, suspend, resume) through the dashboard on a real Redis: the poller's flag, the poll-now channel, roles, scope, CSRF.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseSourceStatus } from '@tidemark/contracts';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

const otherSourceToken = 'other-source-token-0123456789abcdef';
const namespaceToken = 'namespace-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let fixture: DashboardFixture;
let listener: Redis;
const polls: string[] = [];

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), {
    tokens: [
      { name: 'olga', role: 'operator', token: otherSourceToken, scope: { sources: ['other-repo'], namespaces: [], clusters: [] } },
      { name: 'nina', role: 'operator', token: namespaceToken, scope: { sources: [], namespaces: ['shop'], clusters: [] } },
    ],
  });
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'settings'));
  // What the poller wrote: the dashboard's suspend must leave every one of these fields as it was.
  await fixture.redis.hset(fixture.store.keys.sourceStatus('main-repo'), { revision: 'a'.repeat(40), state: 'ok', polledAt: '2026-01-01T00:00:00.000Z', leader: 'replica-1' });
  listener = new Redis(inject('redisUrl'));
  listener.on('message', (_channel: string, source: string) => polls.push(source));
  await listener.subscribe(fixture.store.keys.pollNow);
});
afterAll(async () => {
  listener?.disconnect();
  await fixture?.stop();
});

const statusHash = () => fixture.redis.hgetall(fixture.store.keys.sourceStatus('main-repo'));

async function pollAsked(count: number): Promise<void> {
  await expect.poll(() => polls.length).toBe(count);
  expect(polls.at(-1)).toBe('main-repo');
}

describe('source actions', () => {
  it('suspends by writing the one field the poller reads, and resume clears it and asks for a poll', async () => {
    const before = await statusHash();
    const suspended = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/suspend', headers: bearer(operatorToken) });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json()).toEqual({ action: 'suspend', source: 'main-repo', suspended: true });
    const after = await statusHash();
    expect(parseSourceStatus(after).suspended).toBe(true);
    expect(after).toEqual({ ...before, suspended: 'true' });
    expect((await fixture.app.inject({ url: '/api/sources/main-repo', headers: bearer(viewerToken) })).json()).toMatchObject({ suspended: true });

    const count = polls.length;
    const resumed = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/resume', headers: bearer(operatorToken) });
    expect(resumed.json()).toEqual({ action: 'resume', source: 'main-repo', suspended: false });
    expect(parseSourceStatus(await statusHash()).suspended).toBeUndefined();
    expect(await statusHash()).toEqual(before);
    await pollAsked(count + 1);
  });

  it('fetch asks the leader for a poll on the webhook channel', async () => {
    const count = polls.length;
    const fetched = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/fetch', headers: bearer(operatorToken) });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual({ action: 'fetch', source: 'main-repo' });
    await pollAsked(count + 1);
  });

  it('refuses a viewer, an unknown source, and a token scoped elsewhere, writing nothing', async () => {
    const before = await statusHash();
    const viewer = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/suspend', headers: bearer(viewerToken) });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ code: 'Forbidden' });
    const unknown = await fixture.app.inject({ method: 'POST', url: '/api/sources/no-such-repo/suspend', headers: bearer(operatorToken) });
    expect(unknown.statusCode).toBe(404);
    expect(await fixture.redis.exists(fixture.store.keys.sourceStatus('no-such-repo'))).toBe(0);
    const elsewhere = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/suspend', headers: bearer(otherSourceToken) });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'NotFound' });
    // A namespace-only scope sees the source (its objects come from it) but may not stop it for other namespaces.
    const namespaceOnly = await fixture.app.inject({ method: 'POST', url: '/api/sources/main-repo/suspend', headers: bearer(namespaceToken) });
    expect(namespaceOnly.statusCode).toBe(403);
    expect(await statusHash()).toEqual(before);
  });

  it('shows operators the buttons, and the forms need the session CSRF token', async () => {
    const login = await fixture.app.inject({ method: 'POST', url: '/login', payload: `token=${operatorToken}&next=%2F`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const csrf = (await fixture.app.inject({ url: '/api/session', headers: { cookie } })).json<{ csrf: string }>().csrf;
    const page = await fixture.app.inject({ url: '/sources/main-repo', headers: { cookie } });
    expect(page.body).toContain('action="/sources/main-repo/suspend"');
    expect(page.body).toContain('action="/sources/main-repo/fetch"');
    expect(page.body).toContain(`name="_csrf" value="${csrf}"`);
    const viewerPage = await fixture.app.inject({ url: '/sources/main-repo', headers: bearer(viewerToken) });
    expect(viewerPage.body).not.toContain('id="source-actions"');

    const form = { cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const forged = await fixture.app.inject({ method: 'POST', url: '/sources/main-repo/suspend', payload: '', headers: form });
    expect(forged.statusCode).toBe(403);
    expect(parseSourceStatus(await statusHash()).suspended).toBeUndefined();
    const ok = await fixture.app.inject({ method: 'POST', url: '/sources/main-repo/suspend', payload: `_csrf=${encodeURIComponent(csrf)}`, headers: form });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/sources/main-repo?notice=source-suspend');
    expect(parseSourceStatus(await statusHash()).suspended).toBe(true);
    const suspendedPage = await fixture.app.inject({ url: String(ok.headers.location), headers: { cookie } });
    expect(suspendedPage.body).toContain('Suspended: the source is not polled');
    expect(suspendedPage.body).toContain('action="/sources/main-repo/resume"');
    const resumed = await fixture.app.inject({ method: 'POST', url: '/sources/main-repo/resume', payload: `_csrf=${encodeURIComponent(csrf)}`, headers: form });
    expect(resumed.headers.location).toBe('/sources/main-repo?notice=source-resume');
    expect(parseSourceStatus(await statusHash()).suspended).toBeUndefined();
  });
});
