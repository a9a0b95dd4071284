// The dashboard API through fastify inject on a real Redis: auth, roles, CSRF, errors, OpenAPI.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

let fixture: DashboardFixture;
const key = 'core/ConfigMap/shop/settings';
const actionUrl = `/api/objects/shared/core/ConfigMap/shop/settings`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'settings'));
});
afterAll(async () => fixture?.stop());

async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const login = await fixture.app.inject({ method: 'POST', url: '/login', payload: `token=${encodeURIComponent(token)}&next=%2Fobjects`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(login.statusCode).toBe(303);
  expect(login.headers.location).toBe('/objects');
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Lax/);
  const cookie = setCookie.split(';')[0]!;
  const session = await fixture.app.inject({ url: '/api/session', headers: { cookie } });
  return { cookie, csrf: session.json<{ csrf: string }>().csrf };
}

describe('authentication', () => {
  it('serves /healthz and /readyz without auth', async () => {
    const response = await fixture.app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    const ready = await fixture.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', redis: 'ok' });
  });

  it('refuses every API route without credentials or with a wrong token, with a stable code', async () => {
    const urls = ['/api/overview', '/api/objects', `/api/objects/shared/core/ConfigMap/shop/settings`, '/api/clusters', '/api/clusters/shared', '/api/sources', '/api/sources/main-repo', '/api/queue', '/api/openapi.json', '/api/session'];
    for (const [index, url] of urls.entries()) {
      const anonymous = await fixture.app.inject({ url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json()).toMatchObject({ code: 'Unauthenticated' });
      // Each wrong token from an address of its own: failed bearer tokens are throttled per client
      // address (login-throttle.test.ts), and this test is about the answer, not the count.
      const wrong = await fixture.app.inject({ url, headers: bearer('not-a-valid-token-at-all'), remoteAddress: `192.0.2.${index + 1}` });
      expect(wrong.statusCode, url).toBe(401);
    }
    const events = await fixture.app.inject({ url: '/events', headers: { accept: 'text/event-stream' } });
    expect(events.statusCode).toBe(303);
  });

  it('sends a browser without a session to the login form, and back after sign-in', async () => {
    const page = await fixture.app.inject({ url: '/objects?kind=ConfigMap' });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fobjects%3Fkind%3DConfigMap');
    const form = await fixture.app.inject({ url: '/login?next=%2Fobjects' });
    expect(form.body).toContain('name="token"');
    const { cookie } = await signIn(viewerToken);
    const again = await fixture.app.inject({ url: '/objects', headers: { cookie } });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('vera');
  });

  it('refuses a wrong token at the login form, a forged cookie, and an off-site next', async () => {
    const failed = await fixture.app.inject({ method: 'POST', url: '/login', payload: 'token=wrong-token-wrong-token&next=%2F%2Fevil.example', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(failed.statusCode).toBe(303);
    expect(failed.headers.location).toBe('/login?failed=1&next=%2F');
    expect(failed.headers['set-cookie']).toBeUndefined();
    const { cookie } = await signIn(viewerToken);
    const [name, value] = cookie.split('=') as [string, string];
    // The cookie is a random session id: a neighbouring value is nobody's session.
    const forgedValue = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    const forged = await fixture.app.inject({ url: '/api/session', headers: { cookie: `${name}=${forgedValue}` } });
    expect(forged.statusCode).toBe(401);
    const offsite = await fixture.app.inject({ method: 'POST', url: '/login', payload: `token=${viewerToken}&next=%2F%2Fevil.example`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(offsite.headers.location).toBe('/');
  });

  it('signs out by clearing the cookie', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/logout' });
    expect(response.statusCode).toBe(303);
    expect(String(response.headers['set-cookie'])).toMatch(/Max-Age=0/);
  });
});

describe('roles and CSRF', () => {
  it('lets a viewer read but not act (bearer and session)', async () => {
    expect((await fixture.app.inject({ url: '/api/objects', headers: bearer(viewerToken) })).statusCode).toBe(200);
    const denied = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/reconcile`, headers: bearer(viewerToken) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'Forbidden' });
    const { cookie, csrf } = await signIn(viewerToken);
    const viaSession = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/suspend`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(viaSession.statusCode).toBe(403);
    expect(viaSession.json()).toMatchObject({ code: 'Forbidden' });
    expect((await fixture.store.get('shared', key))?.suspended).toBeUndefined();
    const retry = await fixture.app.inject({ method: 'POST', url: '/api/queue/shared/retry', headers: bearer(viewerToken) });
    expect(retry.statusCode).toBe(403);
  });

  it('lets an operator with a bearer token reconcile now: a manual job at the last attempted revision', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/reconcile`, headers: bearer(operatorToken) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ action: 'reconcile', cluster: 'shared', objectKey: key, queue: 'queued' });
    const figures = await fixture.queues.figures();
    expect(figures.find((entry) => entry.cluster === 'shared')?.depth.waiting).toBe(1);
  });

  it('refuses a cookie-session action without the CSRF token, or with a wrong one, and accepts the right one', async () => {
    const { cookie, csrf } = await signIn(operatorToken);
    const missing = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/suspend`, headers: { cookie } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toMatchObject({ code: 'CsrfTokenInvalid' });
    const wrong = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/suspend`, headers: { cookie, 'x-csrf-token': `${csrf.slice(1)}x` } });
    expect(wrong.statusCode).toBe(403);
    const form = await fixture.app.inject({ method: 'POST', url: '/objects/shared/core/ConfigMap/shop/settings/suspend', payload: 'objectKey=x', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.statusCode).toBe(403);
    expect((await fixture.store.get('shared', key))?.suspended).toBeUndefined();

    const ok = await fixture.app.inject({ method: 'POST', url: '/objects/shared/core/ConfigMap/shop/settings/suspend', payload: `_csrf=${encodeURIComponent(csrf)}`, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/objects/shared/core/ConfigMap/shop/settings?notice=suspend');
    expect((await fixture.store.get('shared', key))?.suspended).toBe(true);
    const resumed = await fixture.app.inject({ method: 'POST', url: `${actionUrl}/resume`, headers: { cookie, 'x-csrf-token': csrf } });
    expect(resumed.json()).toMatchObject({ action: 'resume', suspended: false });
    expect((await fixture.store.get('shared', key))?.suspended).toBeUndefined();
  });

  it('answers 404 for actions on an unknown object and 409 for an object without a revision', async () => {
    const unknown = await fixture.app.inject({ method: 'POST', url: '/api/objects/shared/core/ConfigMap/shop/nothing/reconcile', headers: bearer(operatorToken) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NotFound' });
    await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'fresh', { lastAttemptedRevision: undefined, lastAppliedRevision: undefined }));
    const fresh = await fixture.app.inject({ method: 'POST', url: '/api/objects/shared/core/ConfigMap/shop/fresh/reconcile', headers: bearer(operatorToken) });
    expect(fresh.statusCode).toBe(409);
    expect(fresh.json()).toMatchObject({ code: 'NoRevisionYet' });
  });

  it('retries failed objects of a cluster for an operator', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/api/queue/shared/retry', headers: bearer(operatorToken) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ action: 'retry', cluster: 'shared', retried: 0 });

    const { cookie, csrf } = await signIn(operatorToken);
    const form = await fixture.app.inject({ method: 'POST', url: '/objects/shared/core/ConfigMap/shop/fresh/retry', payload: `_csrf=${encodeURIComponent(csrf)}`, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.headers.location).toBe('/objects/shared/core/ConfigMap/shop/fresh?notice=retry-none');
    const page = await fixture.app.inject({ url: String(form.headers.location), headers: { cookie } });
    expect(page.body).toContain('Nothing to retry');
  });
});

describe('OpenAPI', () => {
  it('serves a document with every API route, its parameters and one response per status', async () => {
    const response = await fixture.app.inject({ url: '/api/openapi.json', headers: bearer(viewerToken) });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string }[] }>> }>();
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/audit', '/api/audit/verify', '/api/clusters', '/api/clusters/{cluster}', '/api/clusters/{cluster}/freeze', '/api/clusters/{cluster}/unfreeze', '/api/objects', '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}',
      '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/pods', '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/reconcile',
      '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/restart', '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/resume',
      '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/run-job', '/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/suspend', '/api/overview', '/api/previews', '/api/previews/{source}/{ref}', '/api/prune-holds', '/api/prune-holds/{cluster}/{source}/confirm',
      '/api/queue', '/api/queue/{cluster}/retry', '/api/rollouts', '/api/rollouts/{source}', '/api/rollouts/{source}/{verb}', '/api/session',
      '/api/sources', '/api/sources/{source}', '/api/sources/{source}/fetch', '/api/sources/{source}/resume', '/api/sources/{source}/suspend',
    ]);
    expect(Object.keys(document.paths['/api/objects']!.get!.responses).sort()).toEqual(['200', '400', '401']);
    expect(document.paths['/api/objects']!.get!.parameters?.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['kind', 'namespace', 'cluster', 'source', 'condition', 'q', 'page', 'pageSize']));
    expect(Object.keys(document.paths['/api/objects/{cluster}/{group}/{kind}/{namespace}/{name}/reconcile']!.post!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '503']);
    expect(Object.keys(document.paths['/api/previews']!.post!.responses).sort()).toEqual(['202', '400', '401', '403', '503']);
    expect(Object.keys(document.paths['/api/sources/{source}/suspend']!.post!.responses).sort()).toEqual(['200', '400', '401', '403', '404']);
  });
});
