import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const folder = mkdtempSync(join(tmpdir(), 'tidemark-oidc-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const secret = 'the-client-secret-0123456789abcdef';
const settingsFile = join(folder, 'oidc.json');
const secretFile = join(folder, 'client-secret');
writeFileSync(settingsFile, JSON.stringify({ issuer: 'https://id.example.test', clientId: 'tidemark', redirectUri: 'https://dash.example.test/auth/oidc/callback', groups: [{ group: 'sre', role: 'operator' }] }));
writeFileSync(secretFile, `${secret}\n`);

describe('loadConfig with single sign-on', () => {
  it('reads the settings and the secret from its file; tokens may then be left out', () => {
    const config = loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: settingsFile, TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET_FILE: secretFile });
    expect(config.oidc).toMatchObject({ issuer: 'https://id.example.test', clientSecret: secret, groups: [{ group: 'sre', role: 'operator' }] });
    expect(config.tokens).toEqual([]);
  });

  it('takes the secret from the environment too, and refuses settings without one, never quoting it', () => {
    expect(loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: settingsFile, TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET: secret }).oidc?.clientSecret).toBe(secret);
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: settingsFile })).toThrow(/client secret is missing/);
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: join(folder, 'missing.json'), TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET: secret })).toThrow(/TIDEMARK_DASHBOARD_OIDC_FILE: could not read/);
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, JSON.stringify({ issuer: 'http://id.example.test', clientId: 'x', redirectUri: 'https://d/auth/oidc/callback', groups: [{ group: 'g', role: 'viewer' }] }));
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: broken, TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET: secret })).toThrow(new RegExp(`${broken}: /issuer must be https`));
    try {
      loadConfig({ TIDEMARK_DASHBOARD_OIDC_FILE: broken, TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET: secret });
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
  });
});
