// Issue 37 item 7: a source with verify.sshKeys applies only commits (or, in mode tag, tags) signed
// with one of its SSH keys. Commits are signed by the real `git commit -S` with gpg.format=ssh
// (ssh-keygen), pushed to the rig's Git server, and applied by a reconciler started from a
// tidemark.yaml onto the shared control plane. A commit signed by another key, or unsigned, is
// refused with an error naming the commit and the key expected, and the last verified one stays.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys } from '@tidemark/contracts';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';

const exec = promisify(execFile);
const suffix = randomUUID().slice(0, 8);
const prefix = `sshsig-${suffix}`;
const namespace = `sshsig-${suffix}`;
let git: GitServer;
let heads: WorkingCopy;
let releases: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;
let teamFingerprint: string;

const configMap = (name: string, value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { value } });
const valueOf = async (name: string) => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) as { data?: { value?: string } } | undefined)?.data?.value;
const record = async (source: string) => redis.hgetall(new RecordKeys(prefix).sourceStatus(source));
const signing = (signer: 'team' | 'mallory') => ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${join(workDir, signer)}`];

/** commit writes the settings and pushes a commit signed by `signer`'s SSH key, or unsigned. */
async function commit(value: string, signer: 'team' | 'mallory' | 'none'): Promise<string> {
  await heads.write('settings.yaml', configMap('settings', value));
  await heads.git('add', '--all');
  await heads.git(...(signer === 'none' ? [] : signing(signer)), 'commit', '--quiet', signer === 'none' ? '--no-gpg-sign' : '-S', '-m', `settings ${value}`);
  await heads.push();
  return heads.git('rev-parse', 'HEAD');
}

/** release commits the release settings unsigned and pushes an annotated tag signed by `signer`. */
async function release(version: string, signer: 'team' | 'mallory'): Promise<void> {
  await releases.write('release.yaml', configMap('release', version));
  await releases.commitAndPush(`release ${version}`);
  await releases.git(...signing(signer), 'tag', '-s', version, '-m', `release ${version}`);
  await releases.git('push', '--quiet', 'origin', `refs/tags/${version}`);
}

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-sshsig-'));
  for (const name of ['team', 'mallory']) await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@example.com`, '-f', join(workDir, name)]);
  const teamKey = (await readFile(join(workDir, 'team.pub'), 'utf8')).trim();
  teamFingerprint = (await exec('ssh-keygen', ['-lf', join(workDir, 'team.pub')])).stdout.split(' ')[1]!;
  git = await startGitServer();
  const headsUrl = await git.createRepository('heads');
  const releasesUrl = await git.createRepository('releases');
  heads = await git.workingCopy('heads');
  releases = await git.workingCopy('releases');
  await heads.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await commit('one', 'team');
  await release('1.0.0', 'team');
  reconciler = await startConfigFileReconciler(workDir, prefix, {
    sources: [
      { name: 'heads', url: headsUrl, ref: { branch: 'main' }, intervalMs: 1_000, verify: { sshKeys: [teamKey] } },
      { name: 'releases', url: releasesUrl, ref: { semver: '^1.0.0' }, intervalMs: 1_000, verify: { mode: 'tag', sshKeys: [teamKey] } },
    ],
  });
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  await git?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('SSH commit signatures (gpg.format=ssh)', () => {
  it('applies a commit signed by an allowed SSH key; refuses one signed by another key, and an unsigned one, keeping the last verified revision', async () => {
    await expect.poll(() => valueOf('settings'), { timeout: 30_000 }).toBe('one');
    const verified = (await record('heads')).revision;

    const forged = await commit('two', 'mallory');
    await expect.poll(async () => (await record('heads')).error ?? '', { timeout: 20_000 })
      .toMatch(new RegExp(`Commit ${forged.slice(0, 12)} of source heads is signed, but by SSH key SHA256:\\S+, which is not one of the expected keys; it is not applied, and the last verified revision stays\\. Expected a signature by ${teamFingerprint.replace(/[+/]/g, '\\$&')}\\.`));
    expect(await valueOf('settings')).toBe('one');
    expect((await record('heads')).revision).toBe(verified);

    const unsigned = await commit('three', 'none');
    await expect.poll(async () => (await record('heads')).error ?? '', { timeout: 20_000 }).toMatch(new RegExp(`Commit ${unsigned.slice(0, 12)} of source heads is not signed`));
    expect(await valueOf('settings')).toBe('one');

    const signed = await commit('four', 'team');
    await expect.poll(() => valueOf('settings'), { timeout: 30_000 }).toBe('four');
    await expect.poll(async () => (await record('heads')).revision, { timeout: 15_000 }).toBe(signed);
  });

  it('in mode tag, applies the highest semver tag signed by an allowed key and refuses a higher one signed by another key', async () => {
    await expect.poll(() => valueOf('release'), { timeout: 30_000 }).toBe('1.0.0');
    await release('1.1.0', 'mallory');
    await expect.poll(async () => (await record('releases')).error ?? '', { timeout: 20_000 }).toMatch(/Tag 1\.1\.0 \([0-9a-f]{12}\) of source releases is signed, but by SSH key SHA256:\S+, which is not one of the expected keys/);
    expect(await valueOf('release')).toBe('1.0.0');
    await release('1.2.0', 'team');
    await expect.poll(() => valueOf('release'), { timeout: 30_000 }).toBe('1.2.0');
  });
});
