// `tidemark login` and `tidemark logout`, run as child processes against a real dashboard and a
// real OpenID provider (panva's oidc-provider, its own process), with Chromium as the person who
// confirms: the device grant where the provider offers it, else a loopback redirect with PKCE.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '@tidemark/testing';
import type { Page } from 'playwright-core';
import { generateKeyPair, SignJWT } from 'jose';
import { seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { openChromium, type Chromium } from '../dashboard/chromium';
import { signInAtProvider, startTestProvider, type TestProvider } from '../support/oidc-provider/start-provider';
import { runTidemark } from './run-tidemark';

const binary = new URL('../../apps/cli/bin/tidemark.mjs', import.meta.url).pathname;
const namespace = `cli-sso-${randomUUID().slice(0, 8)}`;
const users = { olga: { email: 'olga@example.test', groups: ['operators'] } };

interface Site { provider: TestProvider; fixture: DashboardFixture; server: string }
let device: Site;
let loopback: Site;
let browser: Chromium;
let home: string;

/** startSite starts a provider and a dashboard signing on through it. */
async function startSite(deviceFlow: boolean): Promise<Site> {
  const port = await freePort();
  const server = `http://127.0.0.1:${port}`;
  const clientSecret = `dashboard-secret-${randomUUID()}`;
  const provider = await startTestProvider({
    dashboard: { clientId: 'tidemark-dashboard', clientSecret, redirectUris: [`${server}/auth/oidc/callback`], postLogoutRedirectUris: [`${server}/login`] },
    cli: { clientId: 'tidemark-cli' }, users, deviceFlow,
  });
  const fixture = await startDashboardFixture(inject('redisUrl'), {
    clusters: ['shared'],
    oidc: {
      issuer: provider.issuer, clientId: 'tidemark-dashboard', clientSecret, redirectUri: `${server}/auth/oidc/callback`, postLogoutRedirectUri: `${server}/login`,
      scopes: ['openid', 'profile', 'email', 'groups'], groupsClaim: 'groups', cliClientId: 'tidemark-cli', groups: [{ group: 'operators', role: 'operator' }],
    },
  });
  await fixture.app.listen({ host: '127.0.0.1', port });
  await fixture.store.put(seededStatus('shared', 'ConfigMap', namespace, 'web'));
  return { provider, fixture, server };
}

/** login runs `tidemark login`, and signs in as olga in Chromium at the address it prints. */
async function login(site: Site, confirm: (page: Page, address: string) => Promise<void>, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  // Cookies are per host, not per port: both providers' cookies would meet on 127.0.0.1.
  await browser.context.clearCookies();
  const child = spawn(process.execPath, [binary, 'login', ...args], { env: { PATH: process.env.PATH ?? '', HOME: home, TIDEMARK_SERVER: site.server }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const address = new Promise<string>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /(https?:\/\/\S+)\n/.exec(stderr);
      if (found?.[1]) resolve(found[1]);
    });
  });
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  await confirm(browser.page, await Promise.race([address, ended.then(() => { throw new Error(`tidemark login ended early: ${stderr}`); })]));
  return { code: await ended, stderr };
}

/** confirmDevice is a person at the provider's device page: confirm the code, sign in, allow. */
async function confirmDevice(page: Page, address: string): Promise<void> {
  await page.goto(address);
  await page.click('button[type=submit]');
  await signInAtProvider(page, 'olga');
  await allowIfAsked(page);
  await page.waitForSelector('text=Sign-in Success');
}

/** confirmBrowser is a person opening the loopback address: sign in, allow, land on the CLI's page. */
async function confirmBrowser(page: Page, address: string): Promise<void> {
  await page.goto(address);
  await signInAtProvider(page, 'olga');
  await allowIfAsked(page);
  await page.waitForSelector('text=the sign-in came back');
}

// The provider asks once more before it grants offline access (a refresh token).
async function allowIfAsked(page: Page): Promise<void> {
  await page.waitForLoadState();
  if (new URL(page.url()).pathname.startsWith('/interaction/')) await page.click('button[autofocus]');
}

const signOnFile = () => join(home, '.config', 'tidemark', 'sign-on.json');
const asSignedOn = (site: Site) => ({ TIDEMARK_SERVER: site.server, HOME: home });

beforeAll(async () => {
  device = await startSite(true);
  loopback = await startSite(false);
  browser = await openChromium();
  home = await mkdtemp(join(tmpdir(), 'tidemark-login-'));
});

afterAll(async () => {
  await browser?.close();
  for (const site of [device, loopback]) {
    await site?.fixture.stop();
    await site?.provider.stop();
  }
  if (home) await rm(home, { recursive: true, force: true });
});

describe('tidemark login', () => {
  it('signs in with the device grant, keeps the token with mode 0600, and acts with the role of the groups', async () => {
    const result = await login(device, confirmDevice);
    expect(result.stderr).toContain('confirm the code');
    expect(result.code).toBe(0);
    expect((await stat(signOnFile())).mode & 0o777).toBe(0o600);
    const suspend = await runTidemark(['suspend', `ConfigMap/${namespace}/web`, '-c', 'shared'], asSignedOn(device));
    expect(suspend.stderr).toBe('');
    expect(suspend.code).toBe(0);
    expect((await device.fixture.store.get('shared', `core/ConfigMap/${namespace}/web`))?.suspended).toBe(true);
    const audit = await device.fixture.app.inject({ url: '/api/audit?action=object.suspend', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(audit.json<Array<{ actor: unknown }>>()[0]?.actor).toMatchObject({ name: 'olga', role: 'operator', via: 'bearer', groups: ['operators'] });
  });

  it('refreshes the ID token when it is due, with the refresh token', async () => {
    const before = JSON.parse(await readFile(signOnFile(), 'utf8')) as { idToken: string; expiresAt: number };
    await writeFile(signOnFile(), JSON.stringify({ ...before, expiresAt: 0 }), { mode: 0o600 });
    const status = await runTidemark(['status', '-o', 'json'], asSignedOn(device));
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const after = JSON.parse(await readFile(signOnFile(), 'utf8')) as { idToken: string; expiresAt: number };
    expect(after.idToken).not.toBe(before.idToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect((await stat(signOnFile())).mode & 0o777).toBe(0o600);
  });

  it('lets a static token from the environment win over the sign-on', async () => {
    const resume = await runTidemark(['resume', `ConfigMap/${namespace}/web`, '-c', 'shared'], { ...asSignedOn(device), TIDEMARK_TOKEN: viewerToken });
    expect(resume.code).toBe(1);
    expect(resume.stderr).toContain('operator');
  });

  it('the dashboard refuses a bearer ID token with changed claims, or signed by another key', async () => {
    const { idToken } = JSON.parse(await readFile(signOnFile(), 'utf8')) as { idToken: string };
    const [header, payload, signature] = idToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const retargeted = `${header}.${Buffer.from(JSON.stringify({ ...claims, aud: 'tidemark-dashboard' })).toString('base64url')}.${signature}`;
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', kid: JSON.parse(Buffer.from(header, 'base64url').toString()).kid as string }).sign(privateKey);
    for (const token of [retargeted, forged]) {
      const response = await device.fixture.app.inject({ url: '/api/session', headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(401);
    }
    const real = await device.fixture.app.inject({ url: '/api/session', headers: { authorization: `Bearer ${idToken}` } });
    expect(real.json()).toMatchObject({ name: 'olga', role: 'operator', via: 'bearer' });
  });

  it('logout revokes the refresh token at the provider and forgets the sign-on', async () => {
    const { refreshToken } = JSON.parse(await readFile(signOnFile(), 'utf8')) as { refreshToken: string };
    const logout = await runTidemark(['logout'], asSignedOn(device));
    expect(logout.code).toBe(0);
    await expect(stat(signOnFile())).rejects.toThrow(/ENOENT/);
    const refreshed = await fetch(`${device.provider.issuer}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'tidemark-cli' }) });
    expect(refreshed.status).toBe(400);
    const status = await runTidemark(['status'], asSignedOn(device));
    expect(status.code).toBe(2);
  });

  it('signs in through a loopback redirect with PKCE where the provider offers no device grant', async () => {
    const result = await login(loopback, confirmBrowser);
    expect(result.stderr).toContain('in a browser on this machine');
    expect(result.code).toBe(0);
    const status = await runTidemark(['status', '-o', 'json'], asSignedOn(loopback));
    expect(status.code).toBe(0);
    await runTidemark(['logout'], asSignedOn(loopback));
  });
});
