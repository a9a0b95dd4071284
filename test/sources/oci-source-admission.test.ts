// The Source CRD's admission rules take an oci:// URL with a tag, semver range or digest, and still
// refuse credentials in it and a ref with two selectors. Runs on the shared control plane, in a
// namespace of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ApiError, applyObject, ClusterConnection, createObject, deleteObject, waitForEstablished } from '@tidemark/cluster';
import { sourceCrd } from '@tidemark/source-objects';

const namespace = `oci-admission-${randomUUID().slice(0, 8)}`;
let admin: ClusterConnection;

const admitted = (name: string, url: string, ref: Record<string, string>) => createObject(admin, {
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace }, spec: { url, ref, intervalMs: 60_000, oci: { cosignKeys: [] } },
}).then(() => 'created', (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.message}` : String(error)));

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

describe('Source admission of OCI URLs', () => {
  it.each([
    ['tag', { tag: 'v1' }],
    ['semver', { semver: '1.x' }],
    ['digest', { digest: `sha256:${'a'.repeat(64)}` }],
  ])('admits oci:// with a %s', async (name, ref) => {
    expect(await admitted(`oci-${name}`, 'oci://registry.example.com/team/apps', ref)).toBe('created');
  });

  it('refuses credentials in the URL, a short digest and two selectors', async () => {
    expect(await admitted('oci-password', 'oci://robot:hunter2@registry.example.com/team/apps', { tag: 'v1' })).toMatch(/^422 .*url must not contain credentials/);
    expect(await admitted('oci-short', 'oci://registry.example.com/team/apps', { digest: 'sha256:abc' })).toMatch(/^422 .*digest/);
    expect(await admitted('oci-two', 'oci://registry.example.com/team/apps', { tag: 'v1', digest: `sha256:${'a'.repeat(64)}` })).toMatch(/^422 /);
  });
});
