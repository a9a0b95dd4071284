// A config-file source over SSH, run by the reconciler: its deploy key and known_hosts are files
// (as a mounted Secret), the repository is served by a real sshd through git-shell and pushed to
// with real `git push` over SSH. A revoked key leaves the last revision applied with a clear
// error; a rotated key file is read at the next poll. Runs on the shared control plane.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys } from '@tidemark/contracts';
import { startSshGitServer, type SshGitServer, type SshKeyPair, type WorkingCopy } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';

const suffix = randomUUID().slice(0, 8);
const prefix = `sshkey-${suffix}`;
const namespace = `sshkey-${suffix}`;
let server: SshGitServer;
let firstKey: SshKeyPair;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;

const configMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } });
const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
const record = async () => redis.hgetall(new RecordKeys(prefix).sourceStatus('over-ssh'));
// Written beside and renamed over, as the kubelet updates a mounted Secret.
const writeKey = async (key: SshKeyPair) => {
  await writeFile(join(workDir, 'next-identity'), key.privateKey, { mode: 0o600 });
  await rename(join(workDir, 'next-identity'), join(workDir, 'identity'));
};

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  server = await startSshGitServer();
  const url = await server.createRepository('over-ssh');
  repo = await server.workingCopy('over-ssh');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('settings.yaml', configMap('one'));
  await repo.commitAndPush('first');
  firstKey = await server.generateKey('ed25519');
  await server.authorize(firstKey);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-sshkey-'));
  await writeKey(firstKey);
  await writeFile(join(workDir, 'known_hosts'), server.knownHosts);
  reconciler = await startConfigFileReconciler(workDir, prefix, {
    sources: [{ name: 'over-ssh', url, ref: { branch: 'main' }, intervalMs: 1_000, auth: { sshPrivateKey: { file: './identity' }, knownHosts: { file: './known_hosts' } } }],
  });
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  await server?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('a config-file source over SSH', () => {
  it('applies what was pushed over SSH; a revoked key keeps the last revision with a clear error; a rotated key file is read at the next poll', async () => {
    await expect.poll(valueOf, { timeout: 60_000 }).toBe('one');
    const applied = (await record()).revision;

    await server.revoke(firstKey);
    await repo.write('settings.yaml', configMap('two'));
    await repo.commitAndPush('second');
    await expect.poll(async () => (await record()).state, { timeout: 20_000 }).toBe('error');
    expect((await record()).error).toMatch(/refused the deploy key SHA256:/);
    expect((await record()).revision).toBe(applied);
    expect(await valueOf()).toBe('one');

    const rotated = await server.generateKey('rsa');
    await server.authorize(rotated);
    await writeKey(rotated);
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('two');
    await expect.poll(async () => (await record()).state, { timeout: 15_000 }).toBe('ok');
    expect(JSON.stringify(await record())).not.toMatch(/PRIVATE KEY/);
  });
});
