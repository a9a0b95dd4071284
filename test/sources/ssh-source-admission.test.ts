// The Source CRD's admission rules take SSH URLs as git writes them (ssh://, git+ssh://, scp-like
// user@host:path) with a login name, and still refuse a password in any URL and plain http to
// another host. Runs on the shared control plane, in a namespace of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ApiError, applyObject, ClusterConnection, createObject, deleteObject, waitForEstablished } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { sourceCrd } from '@tidemark/source-objects';

const namespace = `ssh-admission-${randomUUID().slice(0, 8)}`;
let admin: ClusterConnection;

const source = (name: string, url: string): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace }, spec: { url, ref: { branch: 'main' }, intervalMs: 60_000 },
});
const admitted = (name: string, url: string) => createObject(admin, source(name, url)).then(() => 'created', (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.message}` : String(error)));

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  const crd = sourceCrd();
  await applyObject(admin.asManager('tidemark-rig'), crd);
  await waitForEstablished(admin, [crd.metadata.name]);
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});

afterAll(async () => {
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
});

describe('Source admission of SSH URLs', () => {
  it.each([
    ['scp', 'git@github.com:org/repo.git'],
    ['scp-absolute', 'deploy@git.example.com:/srv/git/repo.git'],
    ['ssh', 'ssh://git@github.com/org/repo.git'],
    ['ssh-port', 'ssh://git@127.0.0.1:2222/srv/repo.git'],
    ['git-plus-ssh', 'git+ssh://git.example.com/org/repo.git'],
  ])('admits %s', async (name, url) => {
    expect(await admitted(name, url)).toBe('created');
  });

  it.each([
    ['ssh-password', 'ssh://git:hunter2@github.com/org/repo.git', 'url must not contain credentials'],
    ['git-plus-ssh-password', 'git+ssh://git:hunter2@github.com/org/repo.git', 'url must not contain credentials'],
    ['https-token', 'https://token@github.com/org/repo.git', 'url must not contain credentials'],
    ['plain-http', 'http://git.example.com/app.git', 'url must use https'],
    ['ftp', 'ftp://git.example.com/app.git', 'url must use https'],
  ])('refuses %s', async (name, url, message) => {
    expect(await admitted(name, url)).toMatch(new RegExp(`^422 .*${message}`));
  });
});
