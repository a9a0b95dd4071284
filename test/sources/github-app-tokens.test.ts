// GitHub App installation tokens, minted by @octokit/auth-app through GitHubAppTokens, against a
// local stand-in for GitHub's token endpoint (no GitHub is reachable from the rig): the stand-in
// verifies each app JWT's RS256 signature with the app's public key, as GitHub does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { GitHubAppTokens } from '@tidemark/source-objects';
import { startGitHubAppServer, type GitHubAppServer } from '@tidemark/testing';

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
const app = keyPair();
let github: GitHubAppServer;

beforeAll(async () => {
  // Ten-minute tokens, so a clock six minutes on is inside the five-minute refresh margin.
  github = await startGitHubAppServer({ appId: '1234', publicKey: app.publicKey, installations: [{ id: 42, owner: 'Tidemark-Org' }], tokenLifetimeMs: 600_000 });
});

afterAll(async () => {
  await github?.stop();
});

describe('GitHub App tokens against a stand-in token endpoint', () => {
  it('mints an installation token with a JWT the endpoint verifies, and keeps it while it is fresh', async () => {
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationId: '42', baseUrl: github.baseUrl });
    const before = github.minted.length;
    const first = await tokens.token();
    expect(github.accepts(first)).toBe(true);
    expect(await tokens.token()).toBe(first);
    expect(github.minted.length - before).toBe(1);
  });

  it('concurrent asks share one request', async () => {
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationId: '42', baseUrl: github.baseUrl });
    const before = github.minted.length;
    const asked = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(asked).size).toBe(1);
    expect(github.minted.length - before).toBe(1);
  });

  it('mints the next token before the current one expires', async () => {
    let now = Date.now();
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationId: '42', baseUrl: github.baseUrl }, { now: () => now });
    const first = await tokens.token();
    now += 4 * 60_000;
    expect(await tokens.token()).toBe(first);
    now += 2 * 60_000;
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(github.accepts(second)).toBe(true);
  });

  it('finds the installation by its owner, as Flux does, case aside', async () => {
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationOwner: 'tidemark-org', baseUrl: github.baseUrl });
    const token = await tokens.token();
    expect(github.minted.find((minted) => minted.token === token)?.installationId).toBe(42);
    const elsewhere = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationOwner: 'someone-else', baseUrl: github.baseUrl });
    await expect(elsewhere.token()).rejects.toMatchObject({ code: 'GitHubAppNotInstalled', message: 'GitHub App 1234 is not installed on someone-else.' });
  });

  it('a JWT signed by another key is refused by the endpoint; the error names the app, never a key or token', async () => {
    const stranger = keyPair();
    const refusedBefore = github.refused.length;
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: stranger.privateKey, installationId: '42', baseUrl: github.baseUrl });
    const error = await tokens.token().then(() => undefined, (caught: unknown) => caught as Error & { code?: string });
    expect(error).toMatchObject({ code: 'GitHubAppTokenFailed', message: 'Could not mint a GitHub App installation token for app 1234 (HTTP 401); check the app id, installation and private key.' });
    expect(github.refused.slice(refusedBefore)).toEqual(['A JSON web token could not be decoded']);
    const body = stranger.privateKey.split('\n')[1]!;
    expect(JSON.stringify(error) + error!.message + String(error!.stack)).not.toContain(body);
  });

  it('an unknown installation is an error, not a token', async () => {
    const tokens = new GitHubAppTokens({ appId: '1234', privateKey: app.privateKey, installationId: '7', baseUrl: github.baseUrl });
    await expect(tokens.token()).rejects.toMatchObject({ code: 'GitHubAppTokenFailed', message: expect.stringContaining('(HTTP 404)') });
  });
});
