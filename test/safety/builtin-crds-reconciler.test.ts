// The built-in CRD watch as the reconciler wires it (not the watch alone): with the app running,
// Tidemark's ConfigWatcher CRD edited or deleted by hand is installed again. On a control plane
// of its own (it deletes a CRD), with the app's own config, Git server and Redis prefix.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { startControlPlane, startGitServer, type ControlPlane, type GitServer } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const name = 'configwatchers.k8spatterns.com';
let plane: ControlPlane;
let git: GitServer;
let workDir: string;
let reconciler: RunningReconciler | undefined;
let connection: ClusterConnection;

const liveCrd = () => getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
const hasStatusSubresource = async () => Boolean(((await liveCrd())?.spec as { versions?: { subresources?: { status?: unknown } }[] } | undefined)?.versions?.[0]?.subresources?.status);

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-builtin-crds-'));
  plane = await startControlPlane({ name: 'builtin-crds-app' });
  git = await startGitServer();
  const remote = await git.createRepository('app');
  const repo = await git.workingCopy('app');
  await repo.write('config.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'a' } }));
  await repo.commitAndPush('one ConfigMap');
  const configPath = join(workDir, 'tidemark.yaml');
  await writeFile(configPath, stringify({
    redis: { url: inject('redisUrl'), prefix: `crds-${randomBytes(4).toString('hex')}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'app', url: remote, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'own', kubeconfig: plane.kubeconfigPath }],
    http: { port: 0, host: '127.0.0.1' },
  }));
  const log = createLogger('warn', new Writable({ write(_chunk, _encoding, done) { done(); } }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), log);
  connection = ClusterConnection.connect({ cluster: 'own', kubeconfig: plane.kubeconfig });
});

afterAll(async () => {
  await reconciler?.stop();
  connection?.close();
  await git?.stop();
  await plane?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the running reconciler keeps its built-in CRDs', () => {
  it('installs the ConfigWatcher CRD at start-up, and again when it is edited or deleted by hand', async () => {
    await expect.poll(hasStatusSubresource, { timeout: 60_000, interval: 250 }).toBe(true);

    await plane.kubectl(['patch', 'crd', name, '--type=json', '-p', '[{"op":"remove","path":"/spec/versions/0/subresources"}]']);
    await expect.poll(hasStatusSubresource, { timeout: 60_000, interval: 250 }).toBe(true);

    const before = (await liveCrd())?.metadata.uid;
    await plane.kubectl(['delete', 'crd', name, '--wait=true']);
    await expect.poll(async () => {
      const crd = await liveCrd();
      return Boolean(crd && crd.metadata.uid !== before && !crd.metadata.deletionTimestamp);
    }, { timeout: 60_000, interval: 250 }).toBe(true);
    expect(await hasStatusSubresource()).toBe(true);
  });
});
