// Cluster objects feed the units rendered per cluster (issue 39): a Cluster added at runtime gets
// a Helm chart rendered with its own API server's version (.Capabilities.KubeVersion) and a
// Kustomize overlay with its own labels (${cluster.labels.region}); relabelling it renders the
// overlay again with the new label. Before, units rendered only for the config file's clusters, so
// a Cluster object got none of a per-cluster unit's objects. The rig's shared control plane is the
// management cluster (a config-file cluster); a second control plane joins as a Cluster object.
// Every check reads the live objects.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, deleteObject, getObject, readCapabilities } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { renderToolsDir, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { renderTools } from '../render/render-fixture';

const id = randomUUID().slice(0, 8);
const home = `fleet-render-${id}`;
const namespace = `fleet-apps-${id}`;
let plane: ControlPlane;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
const connections = new Map<string, ClusterConnection>();

const chart = {
  'Chart.yaml': 'apiVersion: v2\nname: ver\nversion: 0.1.0\n',
  'templates/version.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-version\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n',
  'tidemark-render.yaml': `helm:\n  releaseName: ver\n  namespace: ${namespace}\n`,
};
const overlay = {
  'kustomization.yaml': stringify({ namespace, resources: ['settings.yaml'] }),
  'settings.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { app: 'web' } }),
  'tidemark-render.yaml': stringify({ kustomize: { labels: { 'example.com/region': '${cluster.labels.region}' }, annotations: { 'example.com/cluster': '${cluster.name}' } } }),
};

interface Live { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; data?: Record<string, string> }
const live = async (cluster: string, name: string) => (await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name }).catch(() => undefined)) as Live | undefined;
const region = async (cluster: string) => (await live(cluster, 'settings'))?.metadata.labels?.['example.com/region'];
const putCluster = (labels: Record<string, string>) => applyObject(admin.asManager('cluster-object-render-test'), { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', metadata: { name: 'late', namespace: home }, spec: { labels, kubeconfigSecretRef: { name: 'late-kubeconfig' } } } as KubernetesManifest);

beforeAll(async () => {
  await renderTools();
  [plane] = await startControlPlanes(1, 'fleet-render') as [ControlPlane];
  admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
  connections.set('mgmt', admin);
  connections.set('late', ClusterConnection.connect({ cluster: 'late', kubeconfig: plane.kubeconfig }));
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: home } });
  git = await startGitServer();
  const url = await git.createRepository('fleet');
  repo = await git.workingCopy('fleet');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  for (const [file, text] of Object.entries(chart)) await repo.write(`charts/ver/${file}`, text);
  for (const [file, text] of Object.entries(overlay)) await repo.write(`apps/web/${file}`, text);
  await repo.commitAndPush('a chart that reads the server version, an overlay that reads the cluster labels');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-fleet-render-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `fleet-render-${id}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'fleet', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'mgmt', labels: { region: 'eu' }, kubeconfig: inject('kubeconfigPath') }],
    clusterObjects: { enabled: true, namespace: home, probeIntervalMs: 500 },
    http: { port: 0, host: '127.0.0.1' },
    render: { toolsDir: renderToolsDir },
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger('error'));
});

afterAll(async () => {
  await reconciler?.stop();
  if (admin) {
    await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: home }).catch(() => undefined);
    await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  }
  connections.forEach((connection) => connection.close());
  await git?.stop();
  await plane?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('a Cluster object and the units rendered per cluster', { timeout: 240_000 }, () => {
  it('renders for the config-file cluster first', async () => {
    await expect.poll(() => region('mgmt'), { timeout: 100_000, interval: 500 }).toBe('eu');
  });

  it('renders the chart and the overlay for a Cluster added at runtime: its server version, its labels', async () => {
    await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'late-kubeconfig', namespace: home }, data: { kubeconfig: Buffer.from(plane.kubeconfig).toString('base64') } } as KubernetesManifest);
    await putCluster({ region: 'ap' });
    await expect.poll(() => region('late'), { timeout: 90_000, interval: 500 }).toBe('ap');
    expect((await live('late', 'settings'))?.metadata.annotations?.['example.com/cluster']).toBe('late');
    const { kubeVersion } = await readCapabilities(connections.get('late')!);
    await expect.poll(async () => (await live('late', 'ver-version'))?.data?.kube, { timeout: 60_000, interval: 500 }).toBe(kubeVersion);
    // The config-file cluster keeps its own.
    expect(await region('mgmt')).toBe('eu');
  });

  it('renders the overlay again when the Cluster is relabelled', async () => {
    await putCluster({ region: 'sa' });
    await expect.poll(() => region('late'), { timeout: 90_000, interval: 500 }).toBe('sa');
    expect(await region('mgmt')).toBe('eu');
  });
});
