// Single sign-on in Debian's Chromium against a real OpenID provider (panva's oidc-provider, in its
// own process on loopback): roles from groups, refusals that say why, and each check of the
// provider's answer (state, nonce, audience, expiry) refusing a tampered or misbehaving one.
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { freePort } from '@tidemark/testing';
import type { AuditRecord } from '@tidemark/status-store';
import { seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { openChromium, type Chromium } from './chromium';
import { signInAtProvider, startTestProvider, type TestProvider } from '../support/oidc-provider/start-provider';

const namespace = `sso-${randomUUID().slice(0, 8)}`;
const objectPath = `/objects/shared/core/ConfigMap/${namespace}/web`;
const objectKey = `core/ConfigMap/${namespace}/web`;
let provider: TestProvider;
let fixture: DashboardFixture;
let browser: Chromium;
let base: string;

/** session reads who the browser is signed in as, through the page's own fetch. */
async function session(): Promise<{ status: number; name?: string; role?: string; groups?: string[] }> {
  return browser.page.evaluate(`(async () => {
    const response = await fetch('/api/session');
    return response.status === 200 ? { status: 200, ...(await response.json()) } : { status: response.status };
  })()`);
}

/** signOn starts single sign-on from the dashboard's form and signs in at the provider as `user`. */
async function signOn(user: string, next = '/'): Promise<void> {
  const { page } = browser;
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await Promise.all([page.waitForURL((url) => url.origin === provider.issuer), page.click('#sign-on-button')]);
  await signInAtProvider(page, user);
  await page.waitForURL((url) => url.origin === base, { timeout: 60_000 });
}

/** refusal reads the refusal page's reason, once the browser is back from the provider. */
async function refusal(): Promise<string> {
  await browser.page.waitForSelector('#sign-on-refused', { timeout: 60_000 });
  return (await browser.page.locator('#sign-on-refused').textContent()) ?? '';
}

/**
 * tamperOnce changes the first request to a URL that starts with `prefix` on its way to the
 * server, as a party in the middle would. Chromium's own interception (CDP Fetch) is used, since
 * playwright's routes never see the hops of a redirect, and both requests here are such hops.
 */
async function tamperOnce(prefix: string, change: (url: URL) => void): Promise<() => Promise<void>> {
  const cdp = await browser.context.newCDPSession(browser.page);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${prefix}*`, requestStage: 'Request' }] });
  cdp.on('Fetch.requestPaused', (event) => {
    const url = new URL(event.request.url);
    change(url);
    void cdp.send('Fetch.continueRequest', { requestId: event.requestId, url: url.href }).then(() => cdp.send('Fetch.disable'));
  });
  return () => cdp.detach();
}

async function signInRecords(): Promise<AuditRecord[]> {
  const response = await fixture.app.inject({ url: '/api/audit?action=session.sign', headers: { authorization: `Bearer ${viewerToken}` } });
  return response.json<AuditRecord[]>();
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const clientSecret = `dashboard-secret-${randomUUID()}`;
  provider = await startTestProvider({
    dashboard: { clientId: 'tidemark-dashboard', clientSecret, redirectUris: [`${base}/auth/oidc/callback`], postLogoutRedirectUris: [`${base}/login`] },
    cli: { clientId: 'tidemark-cli' },
    users: {
      olga: { email: 'olga@example.test', groups: ['staff', 'operators'] },
      victor: { email: 'victor@example.test', groups: ['viewers'] },
      nora: { email: 'nora@example.test', groups: [] },
      gus: { email: 'gus@example.test', groups: ['marketing'] },
    },
  });
  fixture = await startDashboardFixture(inject('redisUrl'), {
    clusters: ['shared'],
    oidc: {
      issuer: provider.issuer, clientId: 'tidemark-dashboard', clientSecret, redirectUri: `${base}/auth/oidc/callback`, postLogoutRedirectUri: `${base}/login`,
      scopes: ['openid', 'profile', 'email', 'groups'], groupsClaim: 'groups', cliClientId: 'tidemark-cli',
      groups: [{ group: 'operators', role: 'operator' }, { group: 'viewers', role: 'viewer' }],
    },
  });
  await fixture.app.listen({ host: '127.0.0.1', port });
  await fixture.store.put(seededStatus('shared', 'ConfigMap', namespace, 'web'));
  browser = await openChromium();
});

afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
  await provider?.stop();
});

// Each case starts signed out of both the dashboard and the provider.
beforeEach(async () => {
  await browser.context.clearCookies();
});

describe('single sign-on with an OpenID provider', () => {
  it('lets a member of the operators group suspend from the page, and records the sign-in with the groups', async () => {
    await signOn('olga', objectPath);
    expect(new URL(browser.page.url()).pathname).toBe(objectPath);
    expect(await session()).toMatchObject({ status: 200, name: 'olga', role: 'operator', groups: ['staff', 'operators'] });
    await Promise.all([browser.page.waitForURL(/notice=suspend/), browser.page.click('button[data-action="suspend"]')]);
    expect((await fixture.store.get('shared', objectKey))?.suspended).toBe(true);
    const signIn = (await signInRecords()).find((record) => record.actor.name === 'olga' && record.action === 'session.sign-in');
    expect(signIn).toMatchObject({ result: 'ok', actor: { role: 'operator', groups: ['staff', 'operators'] }, parameters: { method: 'oidc' } });
    await fixture.store.setSuspended('shared', objectKey, false);
  });

  it('gives a member of the viewers group 403 on the action', async () => {
    await signOn('victor', objectPath);
    expect(await session()).toMatchObject({ status: 200, name: 'victor', role: 'viewer' });
    expect(await browser.page.locator('button[data-action]').count()).toBe(0);
    const status = await browser.page.evaluate(`(async () => {
      const csrf = (await (await fetch('/api/session')).json()).csrf;
      return (await fetch('${objectPath}/suspend', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + encodeURIComponent(csrf) })).status;
    })()`);
    expect(status).toBe(403);
    expect((await fixture.store.get('shared', objectKey))?.suspended).toBeUndefined();
  });

  it('refuses a user with no group, or no mapped group, with a page that says why, and records it', async () => {
    await signOn('nora');
    expect(await refusal()).toContain('You are in no group');
    expect(await session()).toMatchObject({ status: 401 });
    await browser.context.clearCookies();
    await signOn('gus');
    expect(await refusal()).toContain('None of your groups (marketing)');
    const refused = (await signInRecords()).filter((record) => record.result === 'denied' && ['nora', 'gus'].includes(record.actor.name));
    expect(refused.map((record) => record.actor.name).sort()).toEqual(['gus', 'nora']);
  });

  it('refuses a callback whose state was tampered with', async () => {
    const stop = await tamperOnce(`${base}/auth/oidc/callback?`, (url) => url.searchParams.set('state', `${url.searchParams.get('state')}x`));
    await signOn('olga');
    expect(await refusal()).toMatch(/"state"/);
    await stop();
    expect(await session()).toMatchObject({ status: 401 });
  });

  it('refuses an ID token whose nonce is not the one the dashboard sent', async () => {
    // The authorization request is changed on its way to the provider, which then signs the other nonce.
    const stop = await tamperOnce(`${provider.issuer}/auth?`, (url) => url.searchParams.set('nonce', 'a-nonce-the-dashboard-never-sent'));
    await signOn('olga');
    expect(await refusal()).toMatch(/"nonce"/);
    await stop();
    expect(await session()).toMatchObject({ status: 401 });
  });

  it('refuses an ID token issued for another audience', async () => {
    await provider.misbehave('audience');
    await signOn('olga');
    expect(await refusal()).toMatch(/"aud"/);
    expect(await session()).toMatchObject({ status: 401 });
  });

  it('refuses an expired ID token', async () => {
    await provider.misbehave('expired');
    await signOn('olga');
    expect(await refusal()).toMatch(/"exp"/);
    expect(await session()).toMatchObject({ status: 401 });
  });

  it('refuses an ID token whose signature is not the provider\'s', async () => {
    await provider.misbehave('signature');
    await signOn('olga');
    expect(await refusal()).toMatch(/signature/i);
    expect(await session()).toMatchObject({ status: 401 });
  });

  it('takes the role away at the next sign-in of a user removed from the group', async () => {
    await signOn('olga');
    expect(await session()).toMatchObject({ role: 'operator' });
    await provider.setGroups('olga', ['viewers']);
    await browser.context.clearCookies();
    await signOn('olga');
    expect(await session()).toMatchObject({ role: 'viewer', groups: ['viewers'] });
    await provider.setGroups('olga', ['staff', 'operators']);
  });

  it('sends an expired session back to the provider, which signs the browser in again', async () => {
    await signOn('olga');
    // Off the dashboard first: a page of it left open would start a sign-in of its own once the
    // session is gone (its next fetch is refused), racing the one this test starts with its state.
    await browser.page.goto('about:blank');
    // The session ends on the server (as at expiry); the provider's own session is still alive.
    for (const key of await fixture.redis.keys(`${fixture.prefix}:*session*`)) await fixture.redis.del(key);
    const visited: string[] = [];
    browser.page.on('request', (request) => { if (request.isNavigationRequest()) visited.push(new URL(request.url()).origin); });
    await browser.page.goto(`${base}${objectPath}`);
    // The provider's own session usually sends the browser straight back; whether it asks again is
    // the provider's affair. What is Tidemark's is that the browser goes there and comes back to the
    // page it asked for, signed in.
    if (new URL(browser.page.url()).origin === provider.issuer) await signInAtProvider(browser.page, 'olga');
    await browser.page.waitForURL((url) => url.origin === base && url.pathname === objectPath, { timeout: 60_000 }).catch((error: unknown) => {
      throw new Error(`the browser stayed at ${browser.page.url()}: ${String(error)}`);
    });
    expect(visited).toContain(provider.issuer);
    expect(await session()).toMatchObject({ status: 200, name: 'olga' });
  });

  it('signs out: the session ends, the provider\'s end-session page follows, and it is recorded', async () => {
    await signOn('olga');
    await Promise.all([browser.page.waitForURL((url) => url.origin === provider.issuer), browser.page.click('header button.link')]);
    expect(new URL(browser.page.url()).pathname).toMatch(/^\/session\/end/);
    await browser.page.goto(`${base}/api/session`);
    expect(await session()).toMatchObject({ status: 401 });
    expect((await signInRecords()).some((record) => record.actor.name === 'olga' && record.action === 'session.sign-out')).toBe(true);
  });

  it('keeps static tokens working beside single sign-on', async () => {
    const response = await fixture.app.inject({ url: '/api/session', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(response.json()).toMatchObject({ name: 'vera', role: 'viewer', via: 'bearer' });
  });
});
