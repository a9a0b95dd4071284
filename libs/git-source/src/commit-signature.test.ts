// Commits and tags here are signed by the real `git commit -S` / `git tag -s`, with gpg.format=ssh
// (ssh-keygen) and with OpenPGP (Debian's gpg), then read back from the repository's object store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyCommit, verifyTag } from './commit-signature';
import { verifyOf } from './source-tenancy';
import { sshKeyFingerprint } from './ssh-signature';

const exec = promisify(execFile);
let dir: string;
let work: string;
let gnupg: string;
let teamKey: string;
let otherKey: string;
let teamOpenpgp: string;

async function git(...args: string[]): Promise<string> {
  // A small environment of its own: git finds gpg and ssh-keygen on PATH, gpg its keys in GNUPGHOME.
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', GNUPGHOME: gnupg, GIT_CONFIG_NOSYSTEM: '1', HOME: dir };
  return (await exec('git', ['-C', work, ...args], { env })).stdout.trim();
}

/** commit makes a commit signed with an SSH key file, with gpg (`openpgp`), or unsigned. */
async function commit(value: string, signer: 'team' | 'other' | 'openpgp' | 'none'): Promise<string> {
  await writeFile(join(work, 'value.txt'), value);
  await git('add', '--all');
  await git(...signingConfig(signer), 'commit', '--quiet', signer === 'none' ? '--no-gpg-sign' : '-S', '-m', `value ${value}`);
  return git('rev-parse', 'HEAD');
}

async function tag(name: string, signer: 'team' | 'other' | 'openpgp' | 'none'): Promise<{ ref: string; oid: string; commit: string }> {
  await git(...signingConfig(signer), 'tag', ...(signer === 'none' ? ['-a'] : ['-s']), name, '-m', `release ${name}`);
  return { ref: `refs/tags/${name}`, oid: await git('rev-parse', name), commit: await git('rev-parse', `${name}^{commit}`) };
}

function signingConfig(signer: 'team' | 'other' | 'openpgp' | 'none'): string[] {
  if (signer === 'openpgp') return ['-c', 'gpg.format=openpgp', '-c', 'user.signingkey=team@example.com'];
  if (signer === 'none') return [];
  return ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${join(dir, signer)}`];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidemark-signed-'));
  work = join(dir, 'work');
  gnupg = join(dir, 'gnupg');
  await exec('mkdir', ['-p', work, gnupg]);
  await chmod(gnupg, 0o700);
  for (const name of ['team', 'other']) await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', join(dir, name)]);
  teamKey = (await readFile(join(dir, 'team.pub'), 'utf8')).trim();
  otherKey = (await readFile(join(dir, 'other.pub'), 'utf8')).trim();
  await exec('gpg', ['--batch', '--homedir', gnupg, '--passphrase', '', '--quick-gen-key', 'Team <team@example.com>', 'ed25519', 'sign', 'never']);
  teamOpenpgp = (await exec('gpg', ['--batch', '--homedir', gnupg, '--armor', '--export', 'team@example.com'])).stdout;
  await exec('git', ['init', '--quiet', '-b', 'main', work]);
  await git('config', 'user.name', 'Team');
  await git('config', 'user.email', 'team@example.com');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const gitdir = () => join(work, '.git');

describe('verifyCommit with SSH signatures (gpg.format=ssh)', () => {
  it('accepts a commit signed by an allowed SSH key and returns its fingerprint', async () => {
    const revision = await commit('one', 'team');
    await expect(verifyCommit(gitdir(), revision, verifyOf({ sshKeys: [otherKey, teamKey] }), 'apps')).resolves.toBe(sshKeyFingerprint(teamKey));
  });

  it('refuses a commit signed by another SSH key, naming the keys expected', async () => {
    const revision = await commit('two', 'other');
    await expect(verifyCommit(gitdir(), revision, verifyOf({ sshKeys: [teamKey] }), 'apps')).rejects.toThrow(
      `Commit ${revision.slice(0, 12)} of source apps is signed, but by SSH key ${sshKeyFingerprint(otherKey)}, which is not one of the expected keys; it is not applied, and the last verified revision stays. Expected a signature by ${sshKeyFingerprint(teamKey)}.`);
  });

  it('refuses an unsigned commit, and an OpenPGP one when only SSH keys are named', async () => {
    const unsigned = await commit('three', 'none');
    await expect(verifyCommit(gitdir(), unsigned, verifyOf({ sshKeys: [teamKey] }), 'apps')).rejects.toThrow(/is not signed; it is not applied/);
    const openpgp = await commit('four', 'openpgp');
    await expect(verifyCommit(gitdir(), openpgp, verifyOf({ sshKeys: [teamKey] }), 'apps')).rejects.toThrow(/is signed with OpenPGP, and the source names no OpenPGP keys/);
    await expect(verifyCommit(gitdir(), openpgp, verifyOf({ sshKeys: [teamKey], openpgpKeys: [teamOpenpgp] }), 'apps')).resolves.toMatch(/^[0-9A-F]{16}$/);
  });

  it('refuses an SSH-signed commit when only OpenPGP keys are named', async () => {
    const revision = await commit('five', 'team');
    await expect(verifyCommit(gitdir(), revision, verifyOf({ openpgpKeys: [teamOpenpgp] }), 'apps')).rejects.toThrow(/is signed with an SSH key, and the source names no SSH keys in verify\.sshKeys/);
  });
});

describe('verifyTag', () => {
  it('accepts an annotated tag signed with SSH or OpenPGP by an allowed key', async () => {
    await commit('six', 'none');
    const ssh = await tag('v1.0.0', 'team');
    await expect(verifyTag(gitdir(), ssh, verifyOf({ mode: 'tag', sshKeys: [teamKey] }), 'apps')).resolves.toBe(sshKeyFingerprint(teamKey));
    const openpgp = await tag('v1.0.1', 'openpgp');
    await expect(verifyTag(gitdir(), openpgp, verifyOf({ mode: 'tag', openpgpKeys: [teamOpenpgp] }), 'apps')).resolves.toMatch(/^[0-9A-F]{16}$/);
  });

  it('refuses a tag signed by another key, an unsigned annotated tag and a lightweight tag', async () => {
    const keys = verifyOf({ mode: 'tag', sshKeys: [teamKey] });
    const forged = await tag('v2.0.0', 'other');
    await expect(verifyTag(gitdir(), forged, keys, 'apps')).rejects.toThrow(`Tag v2.0.0 (${forged.oid.slice(0, 12)}) of source apps is signed, but by SSH key ${sshKeyFingerprint(otherKey)}`);
    const unsigned = await tag('v2.0.1', 'none');
    await expect(verifyTag(gitdir(), unsigned, keys, 'apps')).rejects.toThrow(/Tag v2\.0\.1 .* is not signed/);
    await git('tag', 'v2.0.2');
    const head = await git('rev-parse', 'HEAD');
    await expect(verifyTag(gitdir(), { ref: 'refs/tags/v2.0.2', oid: head, commit: head }, keys, 'apps')).rejects.toThrow(/is a lightweight tag; verify\.mode tag needs an annotated, signed tag/);
  });
});
