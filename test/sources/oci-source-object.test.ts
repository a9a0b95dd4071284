// A Source object whose url is oci://, run by the reconciler: its opted-in Secret holds the registry
// login (username, password). The registry is the rig's real distribution registry; artifacts are pushed
// by oras. A wrong password in the Secret makes Ready=False with a sentence naming the registry and keeps
// what was applied; the right one is used at the next poll, which applies the tag's new digest. Runs on
// the shared control plane, in a namespace of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, createObject, deleteObject, getObject } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { buildOciRegistry, startGitServer, startOciRegistry, type GitServer, type TestOciRegistry } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';
import { fluxLayer, pushLayer } from './oci-artifacts';

const suffix = randomUUID().slice(0, 8);
const namespace = `oci-source-${suffix}`;
let registry: TestOciRegistry;
let http: GitServer;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;

const encoded = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
const loginSecret = (password: string): KubernetesManifest => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry-login', namespace, labels: { 'tidemark.dev/source': 'app' } },
  data: encoded({ username: registry.user.username, password }),
});
const layer = (value: string) => fluxLayer({ 'settings.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } }) });
const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
const statusOf = async () => ((await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'app' }))?.status ?? {}) as { conditions?: Condition[]; lastCommitMessage?: string };
const ready = async () => findCondition((await statusOf()).conditions, 'Ready');

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  await buildOciRegistry();
  registry = await startOciRegistry();
  await pushLayer(registry, 'team/app', 'v1', await layer('one'));
  // The config file needs one source of its own: an empty repository over HTTP.
  http = await startGitServer();
  const bootUrl = await http.createRepository('boot');
  const boot = await http.workingCopy('boot');
  await boot.write('README.md', 'nothing to apply\n');
  await boot.commitAndPush('empty');
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'tidemark-source', namespace } };
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tidemark-source', namespace } },
    { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] },
    { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tidemark-source' }, subjects: [{ kind: 'ServiceAccount', name: 'tidemark-source', namespace }] },
  ] as KubernetesManifest[]) await applyObject(admin, object);
  await applyObject(admin, loginSecret(registry.user.password));
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-oci-source-'));
  reconciler = await startConfigFileReconciler(workDir, `oci-source-${suffix}`, {
    sources: [{ name: 'boot', url: bootUrl, ref: { branch: 'main' }, intervalMs: 60_000 }],
    sourceObjects: { enabled: true, namespaces: [namespace], defaultServiceAccountName: 'tidemark-source' },
  });
}, 900_000);

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  await registry?.stop();
  await http?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('a Source object for an OCI artifact', () => {
  it('pulls with the Secret\'s login; a wrong password keeps what was applied with a clear condition; the right one is used at the next poll', async () => {
    await createObject(admin, {
      apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name: 'app', namespace },
      spec: { url: registry.url('team/app'), ref: { tag: 'v1' }, intervalMs: 1_000, secretRef: { name: 'registry-login' }, oci: { certificateAuthority: registry.caPem } },
    });
    await expect.poll(valueOf, { timeout: 60_000 }).toBe('one');
    await expect.poll(async () => (await statusOf()).lastCommitMessage, { timeout: 15_000 }).toMatch(/^OCI artifact 127\.0\.0\.1:\d+\/team\/app@sha256:/);

    await applyObject(admin, loginSecret('not-the-password'));
    const second = await pushLayer(registry, 'team/app', 'v1', await layer('two'));
    await expect.poll(async () => (await ready())?.status, { timeout: 20_000 }).toBe('False');
    expect((await ready())?.message).toMatch(/answered 401 \(the credentials were refused/);
    expect(await valueOf()).toBe('one');

    await applyObject(admin, loginSecret(registry.user.password));
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('two');
    await expect.poll(async () => (await ready())?.status, { timeout: 15_000 }).toBe('True');
    expect((await statusOf()).lastCommitMessage).toContain(second);
    expect(JSON.stringify(await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'app' }))).not.toMatch(/not-the-password/);
  });
});
