// Multi-cluster fan-out on three real control planes: placement by path and annotation, prune on
// leaving a placement, and isolation: a stopped cluster and a slowed one hold up only themselves.
// `west` is a full control plane (controllers, scheduler, KWOK nodes), so a Deployment placed
// there really rolls out, before its cluster stops and after it comes back.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection, getObject, listObjects } from '@tidemark/cluster';
import { RecordKeys, findCondition, readClusterHealth } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startDelayingProxyProcess, startGitServer, type ControlPlane, type DelayingProxy, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { Redis } from 'ioredis';

const namespace = 'fleet';
const secret = `hook-${randomUUID()}`;
const prefix = `fleet-${randomUUID().slice(0, 8)}`;
let planes: ControlPlane[];
let proxy: DelayingProxy;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let redis: Redis;
const connections = new Map<string, ClusterConnection>();

const configMap = (name: string, annotations: Record<string, string> = {}) =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations }, data: { name } });
const placement = (appsSelector: Record<string, string>) => stringify({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'fleet' },
  spec: { rules: [{ paths: ['apps/'], clusterSelector: { matchLabels: appsSelector } }, { paths: ['dev/'], clusterSelector: { matchLabels: { env: 'dev' } } }] },
});
// A Deployment for `west` only (the full control plane), by annotation.
const usDeployment = (name: string) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, annotations: { 'tidemark.dev/cluster-selector': 'region=us' } },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } } },
});
const readyOn = async (cluster: string, key: string) => findCondition((await reconciler.statusStore.get(cluster, key))?.conditions, 'Ready');
const runningPods = async (cluster: string, app: string) => ((await listObjects(connections.get(cluster)!, 'v1', 'Pod', namespace, { app })) as { status?: { phase?: string } }[])
  .filter((pod) => pod.status?.phase === 'Running').length;
const present = async (cluster: string, name: string) => Boolean(await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name }).catch(() => undefined));

async function pushAndNotify(message: string): Promise<void> {
  await repo.commitAndPush(message);
  expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/fleet`, secret)).toBe(202);
}

beforeAll(async () => {
  planes = await startControlPlanes(3, 'fleet', [1]);
  proxy = await startDelayingProxyProcess(Number(new URL(planes[2]!.server).port), 0);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-fleet-'));
  const slowKubeconfig = join(workDir, 'lab.kubeconfig');
  await writeFile(slowKubeconfig, planes[2]!.kubeconfig.replace(planes[2]!.server, `https://127.0.0.1:${proxy.port}`));
  git = await startGitServer();
  const url = await git.createRepository('fleet');
  repo = await git.workingCopy('fleet');
  await repo.write('base/ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('placement.yaml', placement({ env: 'prod' }));
  await repo.write('apps/web.yaml', configMap('web'));
  await repo.write('apps/us-only.yaml', configMap('us-only', { 'tidemark.dev/cluster-selector': 'region=us' }));
  await repo.write('dev/tool.yaml', configMap('tool'));
  await repo.write('apps/api.yaml', usDeployment('api'));
  await repo.commitAndPush('fleet');

  const clusters = [
    { name: 'east', labels: { env: 'prod', region: 'eu' }, kubeconfig: planes[0]!.kubeconfigPath },
    { name: 'west', labels: { env: 'prod', region: 'us' }, kubeconfig: planes[1]!.kubeconfigPath },
    { name: 'lab', labels: { env: 'dev' }, kubeconfig: slowKubeconfig },
  ];
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'fleet', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters,
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'fleet', provider: 'github', secret: { env: 'FLEET_SECRET' } }],
    healthCheck: { intervalMs: 300, timeoutMs: 5_000, failureThreshold: 3 },
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), FLEET_SECRET: secret }), createLogger('error'));
  clusters.forEach((cluster, index) => connections.set(cluster.name, ClusterConnection.connect({ cluster: cluster.name, kubeconfig: planes[index]!.kubeconfig })));
  redis = new Redis(inject('redisUrl'));
});

afterAll(async () => {
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  await proxy?.stop();
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe('fan-out to three clusters', () => {
  it('places objects by path rule and by annotation, with status per object and cluster', async () => {
    await expect.poll(() => present('east', 'web'), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => present('west', 'us-only'), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => present('lab', 'tool'), { timeout: 30_000 }).toBe(true);
    // Each cluster has its own queue: west's copy of `web` may land after the others.
    await expect.poll(() => present('west', 'web'), { timeout: 30_000 }).toBe(true);
    expect([await present('lab', 'web'), await present('east', 'us-only'), await present('east', 'tool')]).toEqual([false, false, false]);
    for (const cluster of ['east', 'west']) {
      const status = await reconciler.statusStore.get(cluster, `core/ConfigMap/${namespace}/web`);
      expect(findCondition(status?.conditions, 'Ready')?.status, cluster).toBe('True');
    }
    expect(await reconciler.statusStore.get('lab', `core/ConfigMap/${namespace}/web`)).toBeUndefined();
    // The real controllers on west roll the Deployment out, and the pipeline sees it Ready there.
    await expect.poll(async () => (await readyOn('west', `apps/Deployment/${namespace}/api`))?.status, { timeout: 90_000 }).toBe('True');
    expect(await runningPods('west', 'api')).toBe(2);
  });

  it('prunes an object from a cluster that leaves its placement', async () => {
    await repo.write('placement.yaml', placement({ region: 'eu' }));
    await pushAndNotify('apps only in eu');
    await expect.poll(() => present('west', 'web'), { timeout: 45_000 }).toBe(false);
    expect(await present('east', 'web')).toBe(true);
    expect(await present('west', 'us-only')).toBe(true); // its annotation still picks west
  });

  it('keeps a stopped and a slowed cluster from holding up the third, and the stopped one converges after restart', async () => {
    await planes[1]!.halt();
    proxy.setDelay(150);
    await expect.poll(async () => (await readClusterHealth(redis, new RecordKeys(prefix), 'west')).state, { timeout: 20_000 }).toBe('Unavailable');
    const names = Array.from({ length: 8 }, (_, index) => `wave-${index}`);
    for (const name of names) await repo.write(`base/${name}.yaml`, configMap(name));
    await repo.write('apps/wave-api.yaml', usDeployment('wave-api'));
    await pushAndNotify('a wave for every cluster');

    await expect.poll(async () => (await Promise.all(names.map((name) => present('east', name)))).every(Boolean), { timeout: 20_000 }).toBe(true);
    const waiting = await reconciler.statusStore.get('west', `core/ConfigMap/${namespace}/us-only`);
    expect(findCondition(waiting?.conditions, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'ClusterUnavailable' });
    expect((await readClusterHealth(redis, new RecordKeys(prefix), 'west')).queuePaused).toBe(true);

    await expect.poll(async () => (await Promise.all(names.map((name) => present('lab', name)))).every(Boolean), { timeout: 60_000 }).toBe(true);
    await planes[1]!.restart();
    await expect.poll(async () => (await Promise.all(names.map((name) => present('west', name)))).every(Boolean), { timeout: 60_000 }).toBe(true);
    expect((await readClusterHealth(redis, new RecordKeys(prefix), 'west')).state).toBe('Available');
    await expect.poll(async () => findCondition((await reconciler.statusStore.get('west', `core/ConfigMap/${namespace}/us-only`))?.conditions, 'Ready')?.status, { timeout: 30_000 }).toBe('True');
    // After the restart the controllers run again: the Deployment pushed during the outage rolls
    // out, and the one from before is still Ready with its pods.
    await expect.poll(async () => (await readyOn('west', `apps/Deployment/${namespace}/wave-api`))?.status, { timeout: 90_000 }).toBe('True');
    expect(await runningPods('west', 'wave-api')).toBe(2);
    expect((await readyOn('west', `apps/Deployment/${namespace}/api`))?.status).toBe('True');
  });
});
