// Per-cluster values on two real API servers: one Kustomize overlay rendered once per cluster,
// with replicas and an image tag from the cluster's own variables and from the variables of the
// Placement rule that sends the unit there. The live Deployments differ as the values say, the
// status store records which values each cluster got, and a changed Placement variable re-renders
// the unit and changes only the cluster it names.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { renderToolsDir, sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { renderTools } from '../render/render-fixture';

const namespace = 'values';
const secret = `hook-${randomUUID()}`;
const deploymentKey = `apps/Deployment/${namespace}/web`;
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
const connections = new Map<string, ClusterConnection>();

/** The Placement sends apps/web to both prod clusters: replicas 2 everywhere, 4 in the US. */
const placement = (usReplicas: string) => stringify({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'web' },
  spec: {
    rules: [{
      paths: ['apps/web/'],
      clusterSelector: { matchLabels: { env: 'prod' } },
      variables: { replicas: '2' },
      clusterVariables: [{ clusterSelector: { matchLabels: { region: 'us' } }, variables: { replicas: usReplicas } }],
    }],
  },
});

async function pushAndNotify(message: string): Promise<void> {
  await repo.commitAndPush(message);
  expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/values`, secret)).toBe(202);
}

/** live reads the Deployment's replicas and image on a cluster (undefined until it exists). */
async function live(cluster: string): Promise<{ replicas: number; image: string } | undefined> {
  const object = await getObject(connections.get(cluster)!, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' }).catch(() => undefined) as
    { spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } } | undefined;
  return object && { replicas: object.spec.replicas, image: object.spec.template.spec.containers[0]!.image };
}

beforeAll(async () => {
  await renderTools();
  planes = await startControlPlanes(2, 'values');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-values-'));
  git = await startGitServer();
  const url = await git.createRepository('values');
  repo = await git.workingCopy('values');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('placement.yaml', placement('4'));
  await repo.write('apps/web/kustomization.yaml', stringify({ namespace, resources: ['deployment.yaml'] }));
  await repo.write('apps/web/deployment.yaml', stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } },
  }));
  await repo.write('apps/web/tidemark-render.yaml', 'kustomize:\n  images:\n    - name: nginx\n      newTag: "${cluster.variables.nginxTag}"\n  replicas:\n    - name: web\n      count: "${cluster.variables.replicas}"\n');
  await repo.commitAndPush('one overlay for two clusters');

  const clusters = [
    { name: 'eu', labels: { env: 'prod', region: 'eu' }, variables: { nginxTag: '1.26' }, kubeconfig: planes[0]!.kubeconfigPath },
    { name: 'us', labels: { env: 'prod', region: 'us' }, variables: { nginxTag: '1.27' }, kubeconfig: planes[1]!.kubeconfigPath },
  ];
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `values-${randomUUID().slice(0, 8)}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'values', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters,
    http: { port: 0, host: '127.0.0.1' },
    render: { toolsDir: renderToolsDir },
    webhooks: [{ source: 'values', provider: 'github', secret: { env: 'VALUES_SECRET' } }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), VALUES_SECRET: secret }), createLogger('error'));
  clusters.forEach((cluster, index) => connections.set(cluster.name, ClusterConnection.connect({ cluster: cluster.name, kubeconfig: planes[index]!.kubeconfig })));
});

afterAll(async () => {
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('one unit, two clusters, values per cluster', () => {
  it('applies a different Deployment to each API server, from cluster and Placement variables', async () => {
    await expect.poll(() => live('eu'), { timeout: 60_000 }).toEqual({ replicas: 2, image: 'nginx:1.26' });
    await expect.poll(() => live('us'), { timeout: 60_000 }).toEqual({ replicas: 4, image: 'nginx:1.27' });
  });

  it('records which values each cluster got, beside the unit', async () => {
    const status = async (cluster: string) => reconciler.statusStore.get(cluster, deploymentKey);
    await expect.poll(async () => (await status('eu'))?.renderUnit, { timeout: 30_000 }).toEqual({
      renderer: 'kustomize', folder: 'apps/web',
      clusterValues: { name: 'eu', 'labels.env': 'prod', 'labels.region': 'eu', 'variables.nginxTag': '1.26', 'variables.replicas': '2' },
    });
    await expect.poll(async () => (await status('us'))?.renderUnit?.clusterValues, { timeout: 30_000 }).toMatchObject({ name: 'us', 'variables.nginxTag': '1.27', 'variables.replicas': '4' });
  });

  it('re-renders when a Placement variable changes, and changes only the cluster it names', async () => {
    await repo.write('placement.yaml', placement('6'));
    await pushAndNotify('more replicas in the US');
    await expect.poll(() => live('us'), { timeout: 60_000 }).toEqual({ replicas: 6, image: 'nginx:1.27' });
    expect(await live('eu')).toEqual({ replicas: 2, image: 'nginx:1.26' });
  });
});
