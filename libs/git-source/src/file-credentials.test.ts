import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileCredentials } from './file-credentials';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidemark-credfile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileCredentials', () => {
  it('reads the file again when it changes, and only then', async () => {
    const path = join(dir, 'password');
    await writeFile(path, 'first-password\n');
    const credentials = fileCredentials({ username: 'bot', password: 'first-password' }, { field: 'password', path }, 'source app');
    expect(await credentials()).toEqual({ username: 'bot', password: 'first-password' });
    await writeFile(path, 'second-password-longer\n');
    expect(await credentials()).toEqual({ username: 'bot', password: 'second-password-longer' });
  });

  it('follows a file swapped in by rename, as a mounted Secret is', async () => {
    const path = join(dir, 'token');
    await writeFile(path, 'token-one');
    const credentials = fileCredentials({ token: 'token-one' }, { field: 'token', path }, 'source app');
    expect(await credentials()).toEqual({ token: 'token-one' });
    await writeFile(join(dir, 'next'), 'token-two');
    await rename(join(dir, 'next'), path);
    expect(await credentials()).toEqual({ token: 'token-two' });
  });

  it('a file gone or emptied is an error naming the source, field and path, never the old value', async () => {
    const path = join(dir, 'password');
    await writeFile(path, 'first-password');
    const credentials = fileCredentials({ username: 'bot', password: 'first-password' }, { field: 'password', path }, 'source app');
    await credentials();
    await writeFile(path, '  \n');
    await expect(credentials()).rejects.toMatchObject({ code: 'CredentialFileUnreadable', message: `source app.auth.password: cannot read file ${path} (empty); the source is not fetched until it can be read.` });
    await rm(path);
    const error = await credentials().then(() => undefined, (caught: unknown) => caught as Error);
    expect(error?.message).toMatch(/cannot read file .* \(ENOENT\)/);
    expect(JSON.stringify(error) + String(error?.message)).not.toContain('first-password');
  });
});

describe('fileCredentials with a deploy key', () => {
  it('re-reads each of several files when it changes: a rotated key, a new known_hosts', async () => {
    const key = join(dir, 'identity');
    const knownHosts = join(dir, 'known_hosts');
    await writeFile(key, 'key-one\n');
    await writeFile(knownHosts, 'host ssh-ed25519 AAAA\n');
    const credentials = fileCredentials({ sshPrivateKey: 'key-one', knownHosts: 'host ssh-ed25519 AAAA' }, [{ field: 'sshPrivateKey', path: key }, { field: 'knownHosts', path: knownHosts }], 'source app');
    expect(await credentials()).toEqual({ sshPrivateKey: 'key-one', knownHosts: 'host ssh-ed25519 AAAA' });
    await writeFile(join(dir, 'next'), 'key-two-rotated');
    await rename(join(dir, 'next'), key);
    expect(await credentials()).toEqual({ sshPrivateKey: 'key-two-rotated', knownHosts: 'host ssh-ed25519 AAAA' });
    await writeFile(knownHosts, 'host ssh-ed25519 BBBB-longer\n');
    expect(await credentials()).toEqual({ sshPrivateKey: 'key-two-rotated', knownHosts: 'host ssh-ed25519 BBBB-longer' });
    await rm(knownHosts);
    await expect(credentials()).rejects.toMatchObject({ message: expect.stringContaining('source app.auth.knownHosts: cannot read file') });
  });
});
