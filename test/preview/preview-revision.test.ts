// previewRevision against the rig: a real Git server with a pushed feature branch, the shared
// kube-apiserver for the server-side dry-runs, and a Redis status store. It must report every kind
// of change, and write nothing to the cluster or to the status of the main branch's objects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyObject, getObject } from '@tidemark/cluster';
import type { PreviewReport } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { previewMarkdown, previewRevision } from '@tidemark/preview';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

let harness: PipelineHarness;
let head: GitSource;
let cacheDir: string;
let report: PreviewReport;
const namespace = `preview-${randomUUID().slice(0, 8)}`;
const configMap = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n${Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`).join('\n')}\n`;
const secret = (password: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${namespace}\nstringData:\n  password: ${password}\n`;
const liveState = async () => {
  const names = ['keep', 'change', 'gone'];
  const live = await Promise.all(names.map((name) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })));
  const records = await Promise.all(['keep', 'change', 'gone', 'db'].map((name) => harness.statusStore.get(harness.cluster, `core/${name === 'db' ? 'Secret' : 'ConfigMap'}/${namespace}/${name}`)));
  return JSON.stringify({ versions: live.map((object) => object?.metadata.resourceVersion), records });
};

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('keep.yaml', configMap('keep', { a: '1' }));
  await harness.repo.write('change.yaml', configMap('change', { color: 'blue' }));
  await harness.repo.write('gone.yaml', configMap('gone', { b: '2' }));
  await harness.repo.write('secret.yaml', secret('old-secret-value'));
  const { poll } = await harness.pushAndReconcile('base');
  // Someone changes a field Tidemark owns, with another field manager.
  await applyObject(harness.connection.asManager('kubectl-edit'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'change', namespace }, data: { color: 'red' } });

  await harness.repo.git('checkout', '--quiet', '-b', 'feature');
  await harness.repo.write('change.yaml', configMap('change', { color: 'green', size: 'L' }));
  await harness.repo.delete('gone.yaml');
  await harness.repo.write('new.yaml', configMap('new', { c: '3' }));
  await harness.repo.write('bad.yaml', `apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: ${namespace}\nspec:\n  ports:\n  - port: 70000\n`);
  await harness.repo.write('role.yaml', `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n  namespace: ${namespace}\nrules:\n- apiGroups: [""]\n  resources: [configmaps]\n  verbs: [get]\n`);
  await harness.repo.write('secret.yaml', secret('new-secret-value'));
  await harness.repo.commit('feature');
  await harness.repo.push({ branch: 'feature' });

  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-preview-'));
  head = new GitSource({ spec: parseSourceSpec({ name: 'test', url: harness.source.spec.url, ref: { branch: 'feature' }, intervalMs: 1000 }, 'preview'), cacheDir });
  await head.open();
  const revision = (await head.poll()).revision;
  const before = await liveState();
  report = await previewRevision(
    { source: 'test', ref: 'feature', baseRevision: poll.revision, revision, requestedAt: new Date().toISOString() },
    { base: harness.source, head, clusters: [{ name: harness.cluster, labels: {} }], render: { connectionFor: () => harness.connection, kinds: harness.kinds, statusStore: harness.statusStore } },
  );
  expect(await liveState()).toBe(before);
});

afterAll(async () => {
  await head?.close();
  await harness?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

const changeOf = (kind: string, name: string) => report.changes.find((change) => change.kind === kind && change.name === name);

describe('previewRevision', () => {
  it('lists field changes, naming the manager whose value would be overwritten', () => {
    expect(changeOf('ConfigMap', 'change')).toMatchObject({
      cluster: 'shared', action: 'configured', path: 'change.yaml',
      fields: [{ path: '/data/color', live: 'red', desired: 'green', overwrites: 'kubectl-edit' }, { path: '/data/size', desired: 'L' }],
      desired: { data: { color: 'green', size: 'L' } }, live: { data: { color: 'red' } },
    });
    expect(changeOf('ConfigMap', 'keep')).toBeUndefined();
  });

  it('lists created and deleted objects, and those the API server would refuse, with its message', () => {
    expect(changeOf('ConfigMap', 'new')).toMatchObject({ action: 'created', path: 'new.yaml' });
    expect(changeOf('ConfigMap', 'gone')).toMatchObject({ action: 'deleted', path: 'gone.yaml' });
    const bad = changeOf('Service', 'bad');
    expect(bad).toMatchObject({ action: 'invalid', path: 'bad.yaml' });
    expect(bad?.message).toMatch(/70000/);
  });

  it('says only that a Secret changed, never its values', () => {
    const db = changeOf('Secret', 'db');
    expect(db?.action).toBe('configured');
    expect(db?.fields?.every((field) => field.desired === '[redacted]')).toBe(true);
    const everything = JSON.stringify(report) + previewMarkdown(report);
    for (const value of ['old-secret-value', 'new-secret-value', Buffer.from('old-secret-value').toString('base64'), Buffer.from('new-secret-value').toString('base64')]) {
      expect(everything).not.toContain(value);
    }
  });

  it('sums up the blast radius and flags RBAC changes', () => {
    expect(report.blastRadius).toMatchObject({
      clusters: ['shared'], namespaces: [namespace], kinds: ['ConfigMap', 'Role', 'Secret', 'Service'],
      counts: { created: 2, configured: 2, deleted: 1, invalid: 1 },
    });
    expect(report.blastRadius?.flagged).toEqual([`shared: Role ${namespace}/reader — RBAC created: who may do what changes`]);
  });

  it('wrote nothing: the new objects are not in the cluster', async () => {
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'new' })).toBeUndefined();
    expect(await getObject(harness.connection, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', namespace, name: 'reader' })).toBeUndefined();
    expect((await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'change' }))?.data).toEqual({ color: 'red' });
  });

  it('renders markdown for a pull request', () => {
    const markdown = previewMarkdown(report, 'http://dashboard.example/previews/test/feature');
    expect(markdown).toContain('**2 created, 2 changed, 1 deleted, 1 invalid** on 1 cluster(s): `shared`');
    expect(markdown).toContain('~ ConfigMap');
    expect(markdown).toContain('/data/color: "red" → "green"  (overwrites kubectl-edit)');
    expect(markdown).toMatch(/#### Would fail validation\n\n- `Service .*\/bad` on `shared` \(`bad.yaml` line 1\): .*70000/);
  });
});
