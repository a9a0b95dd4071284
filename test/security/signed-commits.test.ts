// Point 10: a source with verify applies only commits signed by one of its OpenPGP keys. Commits
// are signed with the real `git commit -S` through Debian's gpg and pushed to the rig's Git
// server; an unsigned commit, or one signed by another key, fails the poll naming the commit and
// the key expected, and the source keeps its last verified revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';

const exec = promisify(execFile);
const team = 'team-a@example.com';
const mallory = 'mallory@example.com';
let gnupg: string;
let cacheDir: string;
let git: GitServer;
let repo: WorkingCopy;
let source: GitSource;
let teamFingerprint: string;

const gpg = async (...args: string[]) => (await exec('gpg', ['--batch', '--homedir', gnupg, ...args], { env: { ...process.env, GNUPGHOME: gnupg } })).stdout;
const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\ndata:\n  value: "${value}"\n`;

/** commit writes a change and commits it, signed by `signer` (its gpg key) or unsigned. */
async function commit(value: string, signer?: string): Promise<string> {
  await repo.write('settings.yaml', configMap(value));
  await repo.git('add', '--all');
  await repo.git('commit', '--quiet', ...(signer ? [`--gpg-sign=${signer}`] : ['--no-gpg-sign']), '-m', `settings ${value}`);
  await repo.push();
  return repo.git('rev-parse', 'HEAD');
}

beforeAll(async () => {
  gnupg = await mkdtemp(join(tmpdir(), 'tidemark-gnupg-'));
  await chmod(gnupg, 0o700);
  // git commit -S runs gpg, which finds its keys through GNUPGHOME.
  process.env.GNUPGHOME = gnupg;
  await gpg('--passphrase', '', '--quick-gen-key', `Team A <${team}>`, 'ed25519', 'sign', 'never');
  await gpg('--passphrase', '', '--quick-gen-key', `Mallory <${mallory}>`, 'ed25519', 'sign', 'never');
  const armored = await gpg('--armor', '--export', team);
  teamFingerprint = /fpr:::::::::([0-9A-F]{40}):/.exec(await gpg('--with-colons', '--fingerprint', team))![1]!;
  git = await startGitServer();
  const url = await git.createRepository('signed');
  repo = await git.workingCopy('signed');
  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-signed-cache-'));
  source = new GitSource({ spec: parseSourceSpec({ name: 'signed', url, ref: { branch: 'main' }, intervalMs: 1000, verify: { openpgpKeys: [armored] } }, 'test'), cacheDir });
  await source.open();
});
afterAll(async () => {
  await source?.close();
  await git?.stop();
  for (const dir of [gnupg, cacheDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a source that requires signed commits', () => {
  it('applies a commit signed by its key, refuses an unsigned one and one signed by another key, and keeps the last verified revision', async () => {
    const signed = await commit('one', team);
    const first = await source.poll();
    expect(first.revision).toBe(signed);
    expect(first.changes.map((change) => change.objectKey)).toEqual(['core/ConfigMap/team-a/settings']);

    const unsigned = await commit('two');
    await expect(source.poll()).rejects.toThrow(new RegExp(`Commit ${unsigned.slice(0, 12)} of source signed is not signed; it is not applied, and the last verified revision stays\\. Expected a signature by ${teamFingerprint}`));
    expect(source.revision).toBe(signed);
    // A job naming it (from Redis) is not admitted either: the worker checks the head's signature too.
    await expect(source.admitRevision(unsigned)).rejects.toThrow(/is not signed/);

    const forged = await commit('three', mallory);
    await expect(source.poll()).rejects.toThrow(new RegExp(`Commit ${forged.slice(0, 12)} of source signed is signed, but not by one of the expected keys`));
    expect(source.revision).toBe(signed);

    const again = await commit('four', team);
    const later = await source.poll();
    expect(later.revision).toBe(again);
    expect((await source.readObject(again, 'core/ConfigMap/team-a/settings'))?.object).toMatchObject({ data: { value: 'four' } });
  });
});
