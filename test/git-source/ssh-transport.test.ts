// Git over SSH against a real OpenSSH sshd on loopback serving the repository through git-shell,
// pushed to with real `git push` over SSH: fetch, incremental fetch, host keys pinned (unknown,
// changed, revoked), deploy keys of every type rotated and revoked, and a size bomb refused by
// the same pack guard as over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSource, parseSourceSpec, type GitSourceOptions, type SourceAuth } from '@tidemark/git-source';
import { run, startSshGitServer, type SshGitServer, type SshKeyPair, type WorkingCopy } from '@tidemark/testing';
import { configMap, summarise } from './source-fixture';

let server: SshGitServer;
let deployKey: SshKeyPair;
let hostFingerprint: string;
const opened: Array<{ source: GitSource; dir: string }> = [];

beforeAll(async () => {
  server = await startSshGitServer();
  deployKey = await server.generateKey('ed25519');
  await server.authorize(deployKey);
  hostFingerprint = (await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(server.root, 'host_ed25519.pub')])).split(/\s+/)[1] ?? '';
});

afterAll(async () => {
  await Promise.all(opened.map(async ({ source, dir }) => {
    await source.close();
    await rm(dir, { recursive: true, force: true });
  }));
  await server?.stop();
});

const authOf = (key: SshKeyPair, knownHosts = server.knownHosts): SourceAuth => ({
  sshPrivateKey: key.privateKey, knownHosts, ...(key.passphrase ? { passphrase: key.passphrase } : {}),
});

async function openSource(url: string, options: Partial<Omit<GitSourceOptions, 'spec' | 'cacheDir'>> & { auth?: SourceAuth } = {}): Promise<GitSource> {
  const { auth = authOf(deployKey), ...rest } = options;
  const spec = parseSourceSpec({ name: `ssh-${randomUUID().slice(0, 8)}`, url, ref: { branch: 'main' }, intervalMs: 60_000, auth }, 'test source');
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-cache-'));
  const source = new GitSource({ spec, cacheDir: dir, ...rest });
  await source.open();
  opened.push({ source, dir });
  return source;
}

async function repository(): Promise<{ url: string; copy: WorkingCopy; first: string }> {
  const name = `r-${randomUUID().slice(0, 8)}`;
  const url = await server.createRepository(name);
  const copy = await server.workingCopy(name);
  await copy.write('a.yaml', configMap('a'));
  await copy.write('b.yaml', configMap('b'));
  const first = await copy.commitAndPush('first');
  return { url, copy, first };
}

describe('fetching over SSH', () => {
  it('fetches a revision, then only what a push added; an unmoved ref fetches nothing', async () => {
    const { url, copy, first } = await repository();
    const source = await openSource(url);

    const initial = await source.poll();
    expect(initial.revision).toBe(first);
    expect(summarise(initial.changes)).toEqual(['added core/ConfigMap/_/a', 'added core/ConfigMap/_/b']);
    expect(initial.errors).toEqual([]);

    await copy.write('b.yaml', configMap('b', '2'));
    const second = await copy.commitAndPush('second');
    const moved = await source.poll();
    expect(moved.revision).toBe(second);
    expect(moved.previousRevision).toBe(first);
    expect(summarise(moved.changes)).toEqual(['changed core/ConfigMap/_/b']);
    // The commit, the root tree and the changed blob: an incremental fetch, not the whole history.
    expect(moved.fetchedObjects).toBe(3);

    const unmoved = await source.poll();
    expect(unmoved.moved).toBe(false);
    expect(unmoved.fetchedObjects).toBe(0);
  });

  it('reads a revision that is not the head on demand (a worker behind the poller)', async () => {
    const { url, copy, first } = await repository();
    await copy.write('a.yaml', configMap('a', '2'));
    await copy.commitAndPush('second');
    const worker = await openSource(url);
    const read = await worker.readObject(first, 'core/ConfigMap/_/a');
    expect(read?.object).toMatchObject({ data: { value: '1' } });
  });
});

describe('host keys', () => {
  it('refuses an unknown host, naming the host and the fingerprint it showed', async () => {
    const { url } = await repository();
    const source = await openSource(url, { auth: authOf(deployKey, `[127.0.0.2]:${server.port} ${server.knownHosts.split(' ').slice(1).join(' ')}`) });
    const refusal = await refusalOf(source.poll());
    expect(refusal).toMatchObject({ code: 'SshHostKeyRefused' });
    expect(refusal.message).toContain(`host [127.0.0.1]:${server.port} is not in known_hosts`);
    expect(refusal.message).toContain(hostFingerprint);
    expect(source.revision).toBeUndefined();
  });

  it('refuses a host whose key is not the pinned one, and a revoked host key', async () => {
    const { url, first } = await repository();
    const other = await server.generateKey('ed25519');
    const [type, blob] = other.publicKey.split(' ');
    const changed = await openSource(url, { auth: authOf(deployKey, `[127.0.0.1]:${server.port} ${type} ${blob}\n`) });
    const refusal = await refusalOf(changed.poll());
    expect(refusal).toMatchObject({ code: 'SshHostKeyRefused' });
    expect(refusal.message).toContain(`host [127.0.0.1]:${server.port} showed the host key ${hostFingerprint}, which is not the one known_hosts pins`);

    const revokedLine = `@revoked * ${server.knownHosts.split(' ').slice(1).join(' ')}`;
    const revoked = await openSource(url, { auth: authOf(deployKey, `${server.knownHosts}${revokedLine}`) });
    await expect(revoked.poll()).rejects.toMatchObject({ code: 'SshHostKeyRefused', message: expect.stringContaining('@revoked') });

    // A hashed known_hosts line (ssh-keygen -H) pins the same key.
    const hashed = await openSource(url, { auth: authOf(deployKey, await hashedKnownHosts()) });
    expect((await hashed.poll()).revision).toBe(first);
  });
});

describe('deploy keys', () => {
  it('uses a rotated key at the next poll: ed25519, then RSA with a passphrase, then ECDSA', async () => {
    const { url, copy } = await repository();
    let current = deployKey;
    const source = await openSource(url, { credentials: async () => authOf(current) });
    await source.poll();
    for (const [type, passphrase] of [['rsa', 'rsa passphrase'], ['ecdsa', undefined]] as const) {
      const next = await server.generateKey(type, passphrase);
      await server.authorize(next);
      if (current !== deployKey) await server.revoke(current);
      current = next;
      await copy.write('a.yaml', configMap('a', type));
      const pushed = await copy.commitAndPush(`with ${type}`);
      expect((await source.poll()).revision).toBe(pushed);
    }
  });

  it('refuses a wrong passphrase without saying it, before connecting', async () => {
    const { url } = await repository();
    const key = await server.generateKey('ed25519', 'right passphrase');
    await server.authorize(key);
    const source = await openSource(url, { auth: { ...authOf(key), passphrase: 'wrong passphrase' } });
    const refusal = await refusalOf(source.poll());
    expect(refusal).toMatchObject({ code: 'SshKeyInvalid', message: expect.stringContaining('passphrase is missing or wrong') });
    expect(refusal.message).not.toContain('wrong passphrase');
  });

  it('a revoked key fails with a clear error and the last good revision stays', async () => {
    const { url, copy, first } = await repository();
    const key = await server.generateKey('ed25519');
    await server.authorize(key);
    const source = await openSource(url, { auth: authOf(key) });
    expect((await source.poll()).revision).toBe(first);

    await server.revoke(key);
    await copy.write('a.yaml', configMap('a', 'after revoke'));
    await copy.commitAndPush('after revoke');
    const refusal = await refusalOf(source.poll());
    const fingerprint = (await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key.path}.pub`])).split(/\s+/)[1];
    expect(refusal).toMatchObject({ code: 'GitAuthFailed' });
    expect(refusal.message).toContain(`host [127.0.0.1]:${server.port} refused the deploy key ${fingerprint}`);
    expect(refusal.message).not.toContain('PRIVATE KEY');
    expect(source.revision).toBe(first);
    expect((await source.readObject(first, 'core/ConfigMap/_/a'))?.object).toMatchObject({ data: { value: '1' } });
  });
});

describe('limits', () => {
  it('refuses a size bomb with the same pack guard as over HTTP, keeping the last revision', async () => {
    const { url, copy, first } = await repository();
    const source = await openSource(url, { sizeLimits: { maxObjectBytes: 1024 * 1024, maxFetchBytes: 4 * 1024 * 1024 } });
    expect((await source.poll()).revision).toBe(first);
    // 8 MiB of one repeated line packs to a few KiB: only the object's declared size gives it away.
    await copy.write('bomb.yaml', `# ${'x'.repeat(78)}\n`.repeat(100_000));
    await copy.write('noise.bin', randomBytes(16).toString('hex'));
    await copy.commitAndPush('bomb');
    await expect(source.poll()).rejects.toMatchObject({ code: 'SourceTooLarge' });
    expect(source.revision).toBe(first);
  });
});

/** refusalOf is the error a poll fails with; a poll that succeeds fails the test. */
async function refusalOf(poll: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await poll;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('the poll succeeded; it should have been refused');
}

/** hashedKnownHosts is the server's known_hosts line with its host name hashed, as ssh-keygen -H writes it. */
async function hashedKnownHosts(): Promise<string> {
  const file = join(server.root, `known_hosts_hashed-${randomUUID().slice(0, 8)}`);
  await writeFile(file, server.knownHosts);
  await run('ssh-keygen', ['-H', '-f', file]);
  return readFile(file, 'utf8');
}
