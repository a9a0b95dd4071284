// A Source object over SSH, run by the reconciler: its opted-in Secret holds the deploy key
// (identity) and known_hosts as Flux keeps them; the repository is served by a real sshd through
// git-shell. A revoked key stalls the Source with a clear condition and keeps what was applied; a
// rotated key in the Secret is used at the next poll. Runs on the shared control plane, in a
// namespace of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, createObject, deleteObject, getObject } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { startGitServer, startSshGitServer, type GitServer, type SshGitServer, type SshKeyPair, type WorkingCopy } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';

const suffix = randomUUID().slice(0, 8);
const namespace = `ssh-source-${suffix}`;
let ssh: SshGitServer;
let http: GitServer;
let app: WorkingCopy;
let appUrl: string;
let firstKey: SshKeyPair;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;

const encoded = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
// Opted in for Source app, with the keys Flux uses for SSH.
const deployKeySecret = (key: SshKeyPair): KubernetesManifest => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'git-ssh', namespace, labels: { 'tidemark.dev/source': 'app' } },
  data: encoded({ identity: key.privateKey, known_hosts: ssh.knownHosts }),
});
const configMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } });
const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
const statusOf = async () => ((await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'app' }))?.status ?? {}) as { conditions?: Condition[]; lastFetchedRevision?: string };
const ready = async () => findCondition((await statusOf()).conditions, 'Ready');

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  ssh = await startSshGitServer();
  appUrl = await ssh.createRepository('app');
  app = await ssh.workingCopy('app');
  await app.write('settings.yaml', configMap('one'));
  await app.commitAndPush('first');
  firstKey = await ssh.generateKey('ed25519');
  await ssh.authorize(firstKey);
  // The config file needs one source of its own: an empty repository over HTTP.
  http = await startGitServer();
  const bootUrl = await http.createRepository('boot');
  const boot = await http.workingCopy('boot');
  await boot.write('README.md', 'nothing to apply\n');
  await boot.commitAndPush('empty');
  // The identity Source objects act as (sourceObjects.defaultServiceAccountName): it may write ConfigMaps.
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'tidemark-source', namespace } };
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tidemark-source', namespace } },
    { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] },
    { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tidemark-source' }, subjects: [{ kind: 'ServiceAccount', name: 'tidemark-source', namespace }] },
  ] as KubernetesManifest[]) await applyObject(admin, object);
  await applyObject(admin, deployKeySecret(firstKey));
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-ssh-source-'));
  reconciler = await startConfigFileReconciler(workDir, `ssh-source-${suffix}`, {
    sources: [{ name: 'boot', url: bootUrl, ref: { branch: 'main' }, intervalMs: 60_000 }],
    sourceObjects: { enabled: true, namespaces: [namespace], defaultServiceAccountName: 'tidemark-source' },
  });
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  await ssh?.stop();
  await http?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('a Source object over SSH', () => {
  it('fetches with the Secret\'s deploy key; a revoked key keeps what was applied with a clear condition; a rotated key is used at the next poll', async () => {
    await createObject(admin, {
      apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name: 'app', namespace },
      spec: { url: appUrl, ref: { branch: 'main' }, intervalMs: 1_000, secretRef: { name: 'git-ssh' } },
    });
    await expect.poll(valueOf, { timeout: 60_000 }).toBe('one');
    const first = await app.git('rev-parse', 'HEAD');
    await expect.poll(async () => (await statusOf()).lastFetchedRevision, { timeout: 15_000 }).toBe(first);

    await ssh.revoke(firstKey);
    await app.write('settings.yaml', configMap('two'));
    await app.commitAndPush('second');
    await expect.poll(async () => (await ready())?.status, { timeout: 20_000 }).toBe('False');
    expect((await ready())?.message).toMatch(/refused the deploy key SHA256:/);
    expect((await statusOf()).lastFetchedRevision).toBe(first);
    expect(await valueOf()).toBe('one');

    const rotated = await ssh.generateKey('ecdsa');
    await ssh.authorize(rotated);
    await applyObject(admin, deployKeySecret(rotated));
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('two');
    await expect.poll(async () => (await ready())?.status, { timeout: 15_000 }).toBe('True');
    expect(JSON.stringify(await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'app' }))).not.toMatch(/PRIVATE KEY/);
  });
});
