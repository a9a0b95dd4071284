// Rollouts in waves meet Cluster objects (issue 39, item 5): a Cluster added while a rollout is held
// joins the wave its labels select. The rig's shared control plane is the management cluster and the
// canary wave (a config-file cluster); two more control planes are added as Cluster objects while the
// canary wave soaks (the rollout is held there): one labelled for canary (the wave it is at, passed),
// one for prod (the wave not reached yet). Every check of what a cluster has reads the live objects; the rollout
// record is read for what the dashboard's rollout page and `tidemark rollout status` show from it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys, pushRolloutCommand, readRolloutRecord, type KubernetesManifest, type RolloutRecord } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { Redis } from 'ioredis';

const id = randomUUID().slice(0, 8);
// Tidemark's own namespace on the management cluster: the Clusters and their kubeconfig Secrets.
const home = `join-${id}`;
// The ConfigMap goes to `default` on each cluster, named for this run (the management plane is shared).
const namespace = 'default';
const settingsName = `settings-${id}`;
const prefix = `join-${id}`;
const secret = `hook-${randomUUID()}`;
const keys = new RecordKeys(prefix);
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;
const connections = new Map<string, ClusterConnection>();

const settings = (version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: settingsName, namespace }, data: { version } });
const liveVersion = async (cluster: string) => ((await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined)) as { data?: { version?: string } } | undefined)?.data?.version;
const record = async (): Promise<RolloutRecord | undefined> => readRolloutRecord(redis, keys, 'apps');
const promote = () => pushRolloutCommand(redis, keys, 'apps', { verb: 'promote', by: 'rig', at: new Date().toISOString() });
const addCluster = async (name: string, stage: string, kubeconfig: string) => {
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-kubeconfig`, namespace: home }, data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') } } as KubernetesManifest);
  await applyObject(admin.asManager('rollout-join-test'), { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', metadata: { name, namespace: home }, spec: { labels: { stage }, kubeconfigSecretRef: { name: `${name}-kubeconfig` } } } as KubernetesManifest);
};

async function push(version: string): Promise<string> {
  await repo.write('apps/settings.yaml', settings(version));
  const revision = await repo.commitAndPush(`settings ${version}`);
  expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/apps`, secret)).toBe(202);
  return revision;
}

beforeAll(async () => {
  planes = await startControlPlanes(2, 'join');
  admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
  connections.set('mgmt', admin);
  connections.set('late-canary', ClusterConnection.connect({ cluster: 'late-canary', kubeconfig: planes[0]!.kubeconfig }));
  connections.set('late-prod', ClusterConnection.connect({ cluster: 'late-prod', kubeconfig: planes[1]!.kubeconfig }));
  redis = new Redis(inject('redisUrl'));
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: home } });
  git = await startGitServer();
  const url = await git.createRepository('apps');
  repo = await git.workingCopy('apps');
  await repo.write('apps/settings.yaml', settings('1'));
  await repo.commitAndPush('settings 1');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-rollout-join-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'mgmt', labels: { stage: 'canary' }, kubeconfig: inject('kubeconfigPath') }],
    clusterObjects: { enabled: true, namespace: home, probeIntervalMs: 500 },
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'apps', provider: 'github', secret: { env: 'APPS_SECRET' } }],
    rollouts: [{
      source: 'apps',
      waves: [
        // Ten minutes: every soak here ends by an operator's promote.
        { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, soakMs: 600_000 },
        { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } } },
      ],
    }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), APPS_SECRET: secret }), createLogger('error'), { rollouts: { tickMs: 200 } });
});

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: home }).catch(() => undefined);
  if (admin) await deleteObject(admin, { group: '', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined);
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe('a Cluster object added mid-rollout', { timeout: 240_000 }, () => {
  let first: string;
  let second: string;

  it('rolls the first revision out: canary soaks, and once promoted prod (empty yet) is passed', async () => {
    await expect.poll(async () => (await record())?.phase, { timeout: 100_000, interval: 500 }).toBe('soaking');
    first = (await record())!.revision;
    expect(await liveVersion('mgmt')).toBe('1');
    await promote();
    await expect.poll(async () => (await record())?.phase, { timeout: 60_000, interval: 500 }).toBe('complete');
  });

  it('joins its wave: a canary Cluster gets the soaking revision at once, a prod Cluster keeps the last good one', async () => {
    second = await push('2');
    await expect.poll(async () => { const now = await record(); return now?.revision === second ? now.phase : undefined; }, { timeout: 60_000, interval: 500 }).toBe('soaking');
    expect(await liveVersion('mgmt')).toBe('2');
    // The rollout is held in the canary wave's soak: both Clusters are added now.
    await addCluster('late-canary', 'canary', planes[0]!.kubeconfig);
    await addCluster('late-prod', 'prod', planes[1]!.kubeconfig);
    await expect.poll(() => liveVersion('late-canary'), { timeout: 90_000 }).toBe('2');
    await expect.poll(() => liveVersion('late-prod'), { timeout: 90_000 }).toBe('1');
    // The record (what the rollout page and `tidemark rollout status` show) lists both in their waves.
    const held = (await record())!;
    expect(held).toMatchObject({ revision: second, previous: first, phase: 'soaking', wave: 0 });
    expect(held.waves.map((wave) => wave.clusters)).toEqual([['late-canary', 'mgmt'], ['late-prod']]);
    expect(held.targets).toMatchObject({ mgmt: second, 'late-canary': second, 'late-prod': first });
    expect(held.cells['late-canary']).toMatchObject({ wave: 0, reachedAt: expect.any(String) });
    expect(held.cells['late-prod']).toMatchObject({ wave: 1, state: 'waiting' });
    // Still held: the prod Cluster was not given the later revision.
    expect(await liveVersion('late-prod')).toBe('1');
  });

  it('reaches the joined prod Cluster in its turn, once the operator ends the soak', async () => {
    await promote();
    await expect.poll(() => liveVersion('late-prod'), { timeout: 90_000 }).toBe('2');
    await expect.poll(async () => (await record())?.phase, { timeout: 60_000, interval: 500 }).toBe('complete');
    const done = (await record())!;
    expect(done.targets).toMatchObject({ mgmt: second, 'late-canary': second, 'late-prod': second });
    expect(done.cells['late-prod']).toMatchObject({ wave: 1, state: 'ready' });
  });
});
