// The registry token flow against the REAL distribution registry configured for token auth; the token
// service it names is a stand-in (test/sources/oci-token-service.ts: no docker_auth or Harbor is built
// here) on another origin, as Docker Hub's auth.docker.io is. oras pushes through it with the login (its
// choice); Tidemark sends no login to a realm off the registry's origin: a public repository is read
// with an anonymous token, a private one fails with a sentence that says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { buildOciRegistry, makeTestCa, startOciRegistry, type TestCa, type TestOciRegistry } from '@tidemark/testing';
import { fluxLayer, pushLayer } from './oci-artifacts';
import { startTokenService, type TokenService } from './oci-token-service';

const user = { username: 'robot', password: randomBytes(12).toString('hex') };
let ca: TestCa;
let tokens: TokenService;
let registry: TestOciRegistry;
let workDir: string;
const opened: GitSource[] = [];
const files = { 'settings.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { value: 'one' } }) };

async function source(repository: string): Promise<GitSource> {
  const name = `t${randomUUID().slice(0, 8)}`;
  const spec = parseSourceSpec({ name, url: registry.url(repository), ref: { tag: 'v1' }, intervalMs: 1000, auth: user, oci: { certificateAuthority: registry.caPem } }, name);
  const opened_ = new GitSource({ spec, cacheDir: join(workDir, name) });
  await opened_.open();
  opened.push(opened_);
  return opened_;
}

beforeAll(async () => {
  await buildOciRegistry();
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-oci-token-'));
  ca = await makeTestCa('Tidemark OCI token test CA');
  tokens = await startTokenService(ca, workDir, user);
  registry = await startOciRegistry({ ca, user, tokenAuth: tokens });
  await pushLayer(registry, 'public/apps', 'v1', await fluxLayer(files));
  await pushLayer(registry, 'private/apps', 'v1', await fluxLayer(files));
}, 900_000);

afterAll(async () => {
  for (const each of opened) await each.close();
  await registry?.stop();
  await tokens?.stop();
  await ca?.remove();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the registry token flow', () => {
  it('reads a public repository with an anonymous token from a realm on another origin, and reuses the token', async () => {
    const before = tokens.requests.length;
    const apps = await source('public/apps');
    const first = await apps.poll();
    expect(first.declaredObjects).toBe(1);
    expect(tokens.requests.slice(before)).toEqual([{ login: false, scope: 'repository:public/apps:pull' }]);
    const requests = apps.registryRequests!;
    await apps.poll();
    expect({ registry: apps.registryRequests! - requests, tokens: tokens.requests.length - before }).toEqual({ registry: 1, tokens: 1 });
  });

  it('sends no login to a realm off the registry\'s origin, and says so when a private repository is then refused', async () => {
    const before = tokens.requests.length;
    const apps = await source('private/apps');
    const error = await apps.poll().then(() => undefined, (caught: unknown) => caught as Error & { code?: string });
    expect(error?.code).toBe('OciAuthFailed');
    expect(error?.message).toMatch(/the registry's token service is on https:\/\/127\.0\.0\.1:\d+, not the registry's origin https:\/\/127\.0\.0\.1:\d+, so the source's credentials were not sent there/);
    expect(error?.message).not.toContain(user.password);
    expect(tokens.requests.slice(before).every((request) => !request.login)).toBe(true);
  });
});
