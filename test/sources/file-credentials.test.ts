// A config-file source whose password is a file: the Git server starts refusing the old password,
// the file is rewritten (as Kubernetes swaps a mounted Secret), and the next poll fetches with the
// new one, without a restart. Runs on the shared control plane, in a namespace of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys } from '@tidemark/contracts';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';

const suffix = randomUUID().slice(0, 8);
const prefix = `credfile-${suffix}`;
const namespace = `credfile-${suffix}`;
let guarded: GitServer;
let repo: WorkingCopy;
let url: string;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;

const configMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } });
const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
const record = async () => redis.hgetall(new RecordKeys(prefix).sourceStatus('files'));
// Written beside and renamed over, as the kubelet updates a mounted Secret.
const writePassword = async (password: string) => {
  await writeFile(join(workDir, 'next-password'), `${password}\n`);
  await rename(join(workDir, 'next-password'), join(workDir, 'git-password'));
};

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  guarded = await startGitServer({ basicAuth: { username: 'bot', password: 'first-password' } });
  url = await guarded.createRepository('files');
  repo = await guarded.workingCopy('files');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('settings.yaml', configMap('one'));
  await repo.commitAndPush('first');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-credfile-'));
  await writePassword('first-password');
  reconciler = await startConfigFileReconciler(workDir, prefix, {
    sources: [{ name: 'files', url, ref: { branch: 'main' }, intervalMs: 1_000, auth: { username: 'bot', password: { file: './git-password' } } }],
  });
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  await guarded?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('file credentials of a config-file source', () => {
  it('a rewritten password file is read at the next poll, without a restart', async () => {
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('one');
    guarded.setBasicAuth({ username: 'bot', password: 'second-password' });
    await expect.poll(async () => (await record()).state, { timeout: 20_000 }).toBe('error');
    expect((await record()).error).toMatch(/refused the credentials \(HTTP 401\)/);
    // A commit only the new password can fetch: seeing it applied proves the file was read again.
    await repo.git('remote', 'set-url', 'origin', url.replace('http://', 'http://bot:second-password@'));
    await repo.write('settings.yaml', configMap('two'));
    const pushed = await repo.commitAndPush('second');
    await writePassword('second-password');
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('two');
    await expect.poll(async () => (await record()).revision, { timeout: 15_000 }).toBe(pushed);
    expect(JSON.stringify(await record())).not.toMatch(/first-password|second-password/);
  });

  it('a password file that goes away is an error naming the source, field and file, and the source resumes when it is back', async () => {
    await rm(join(workDir, 'git-password'));
    await expect.poll(async () => (await record()).error ?? '', { timeout: 20_000 }).toMatch(/source files\.auth\.password: cannot read file .*git-password \(ENOENT\)/);
    await writePassword('second-password');
    await expect.poll(async () => (await record()).state, { timeout: 20_000 }).toBe('ok');
    expect(await valueOf()).toBe('two');
  });
});
