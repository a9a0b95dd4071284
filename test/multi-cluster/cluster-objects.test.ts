// Clusters as objects (issue 39, item 1), on three real control planes: the rig's shared one is
// the management cluster (a config-file cluster, where Cluster objects and their kubeconfig Secrets
// live), `edge` and `lab` are added, relabelled, rotated and removed at runtime, with no restart.
// Every check reads the live objects: the Clusters' status on the management cluster, and the
// ConfigMaps on the targets.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { PruneHolds } from '@tidemark/status-store';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { Redis } from 'ioredis';

const id = randomUUID().slice(0, 8);
// Tidemark's own namespace on the management cluster: Clusters and their Secrets.
const home = `clusters-${id}`;
// The ConfigMaps go to `default` on each target, with names of this run (the management plane is shared).
const namespace = 'default';
const name = (base: string) => `${base}-${id}`;
const secret = `hook-${randomUUID()}`;
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;
const targets = new Map<string, ClusterConnection>();

const configMap = (base: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(base), namespace }, data: { base } });
const placement = stringify({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'fleet' },
  spec: { rules: [{ paths: ['apps/'], clusterSelector: { matchLabels: { env: 'prod' } } }, { paths: ['dev/'], clusterSelector: { matchLabels: { env: 'dev' } } }] },
});
const present = async (cluster: string, base: string) => Boolean(await getObject(cluster === 'mgmt' ? admin : targets.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: name(base) }).catch(() => undefined));
const kubeconfigSecret = (secretName: string, kubeconfig: string) => applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace: home }, data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') } } as KubernetesManifest);
const cluster = (clusterName: string, spec: Record<string, unknown>) => applyObject(admin.asManager('cluster-objects-test'), { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', metadata: { name: clusterName, namespace: home }, spec } as KubernetesManifest);
const clusterObject = async (clusterName: string) => getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', namespace: home, name: clusterName });
const condition = async (clusterName: string, type: string): Promise<Condition | undefined> => findCondition(((await clusterObject(clusterName))?.status as { conditions?: Condition[] } | undefined)?.conditions, type);

beforeAll(async () => {
  planes = await startControlPlanes(2, 'clobj');
  admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: home } });
  targets.set('edge', ClusterConnection.connect({ cluster: 'edge', kubeconfig: planes[0]!.kubeconfig }));
  targets.set('lab', ClusterConnection.connect({ cluster: 'lab', kubeconfig: planes[1]!.kubeconfig }));
  git = await startGitServer();
  const url = await git.createRepository('fleet');
  repo = await git.workingCopy('fleet');
  await repo.write('placement.yaml', placement);
  await repo.write('apps/web.yaml', configMap('web'));
  await repo.write('dev/tool.yaml', configMap('tool'));
  await repo.write('base/shared.yaml', configMap('shared'));
  await repo.commitAndPush('fleet');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-cluster-objects-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `clobj-${id}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'fleet', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'mgmt', labels: { role: 'management' }, kubeconfig: inject('kubeconfigPath') }],
    clusterObjects: { enabled: true, namespace: home, probeIntervalMs: 500 },
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'fleet', provider: 'github', secret: { env: 'FLEET_SECRET' } }],
    healthCheck: { intervalMs: 300, timeoutMs: 5_000, failureThreshold: 2 },
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), FLEET_SECRET: secret }), createLogger('error'));
});

afterAll(async () => {
  await reconciler?.stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: home }).catch(() => undefined);
  if (admin) await deleteObject(admin, { group: '', kind: 'ConfigMap', namespace, name: name('shared') }).catch(() => undefined);
  if (admin) await deleteObject(admin, { group: '', kind: 'ConfigMap', namespace, name: name('late') }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  targets.forEach((connection) => connection.close());
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe('Cluster objects', () => {
  it('serves a Cluster added at runtime: it gets its objects, and its status says Reachable, Ready, version and last contact', async () => {
    // The first poll has run once the object every cluster gets is on the management cluster.
    await expect.poll(() => present('mgmt', 'shared'), { timeout: 60_000 }).toBe(true);
    await kubeconfigSecret('edge-kubeconfig', planes[0]!.kubeconfig);
    await cluster('edge', { labels: { env: 'dev' }, kubeconfigSecretRef: { name: 'edge-kubeconfig' } });
    await expect.poll(() => present('edge', 'tool'), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => present('edge', 'shared'), { timeout: 30_000 }).toBe(true);
    expect(await present('edge', 'web')).toBe(false);
    await expect.poll(async () => (await condition('edge', 'Ready'))?.status, { timeout: 30_000 }).toBe('True');
    const live = (await clusterObject('edge'))!;
    const status = live.status as { observedGeneration: number; serverVersion?: string; lastContact?: string };
    expect(await condition('edge', 'Reachable')).toMatchObject({ status: 'True', reason: 'Connected' });
    expect(status.observedGeneration).toBe(live.metadata.generation);
    expect(status.serverVersion).toMatch(/^v\d+\.\d+/);
    expect(Date.parse(status.lastContact ?? '')).not.toBeNaN();
  });

  it('moves placement when a Cluster is relabelled: the new rule\'s objects arrive, the old one\'s are pruned', async () => {
    await cluster('edge', { labels: { env: 'prod' }, kubeconfigSecretRef: { name: 'edge-kubeconfig' } });
    await expect.poll(() => present('edge', 'web'), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => present('edge', 'tool'), { timeout: 60_000 }).toBe(false);
    expect(await present('edge', 'shared')).toBe(true);
  });

  it('takes a rotated kubeconfig Secret without a restart: unreachable first, then Ready with its objects applied', async () => {
    await kubeconfigSecret('lab-kubeconfig', planes[1]!.kubeconfig.replace(planes[1]!.server, 'https://127.0.0.1:1'));
    await cluster('lab', { labels: { env: 'prod' }, kubeconfigSecretRef: { name: 'lab-kubeconfig' }, prune: true });
    await expect.poll(async () => (await condition('lab', 'Reachable'))?.status, { timeout: 30_000 }).toBe('False');
    expect(await condition('lab', 'Ready')).toMatchObject({ status: 'False', reason: 'Unreachable' });
    expect((await condition('lab', 'Reachable'))?.message).toMatch(/Cluster lab did not answer/);
    expect(await present('lab', 'web')).toBe(false);

    await kubeconfigSecret('lab-kubeconfig', planes[1]!.kubeconfig);
    await expect.poll(async () => (await condition('lab', 'Ready'))?.status, { timeout: 30_000 }).toBe('True');
    await expect.poll(() => present('lab', 'web'), { timeout: 60_000 }).toBe(true);
    expect((await clusterObject('lab'))?.metadata.finalizers).toContain('tidemark.dev/cluster-prune');
  });

  it('refuses a kubeconfig that runs a command, naming the Secret and the field, and a name a config-file cluster has', async () => {
    const hostile = stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
      clusters: [{ name: 'x', cluster: { server: planes[0]!.server, 'insecure-skip-tls-verify': true } }],
      contexts: [{ name: 'x', context: { cluster: 'x', user: 'runner' } }],
      users: [{ name: 'runner', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'touch /tmp/pwned'] } } }],
    });
    await kubeconfigSecret('evil-kubeconfig', hostile);
    await cluster('evil', { labels: { env: 'prod' }, kubeconfigSecretRef: { name: 'evil-kubeconfig' } });
    await cluster('mgmt', { labels: { env: 'prod' }, inCluster: true });
    await expect.poll(async () => (await condition('evil', 'Ready'))?.reason, { timeout: 30_000 }).toBe('InvalidKubeconfig');
    const refused = await condition('evil', 'Ready');
    expect(refused?.status).toBe('False');
    expect(refused?.message).toContain(`spec.kubeconfigSecretRef (Secret ${home}/evil-kubeconfig, key kubeconfig)`);
    expect(refused?.message).toContain('users[runner].exec runs a credential plugin');
    expect(await condition('evil', 'Reachable')).toMatchObject({ status: 'Unknown', reason: 'NotChecked' });
    await expect.poll(async () => (await condition('mgmt', 'Ready'))?.reason, { timeout: 30_000 }).toBe('NameClash');
    expect((await condition('mgmt', 'Ready'))?.message).toContain('a cluster named mgmt is already configured in tidemark.yaml');
    // The config-file cluster is served as before: the object every cluster gets is still there.
    expect(await present('mgmt', 'shared')).toBe(true);
    expect(await present('mgmt', 'web')).toBe(false);
  });

  it('prunes a deleted Cluster\'s objects when it says prune, through the mass-prune hold, and only then lets it go', async () => {
    await deleteObject(admin, { group: 'tidemark.dev', kind: 'Cluster', namespace: home, name: 'lab' });
    // Both of the source's objects there would go at once: the mass-prune hold asks first, and the Cluster waits.
    const holds = new PruneHolds(redis, `clobj-${id}`);
    await expect.poll(async () => (await holds.get('fleet', 'lab'))?.state, { timeout: 60_000 }).toBe('waiting');
    await expect.poll(async () => (await condition('lab', 'Ready'))?.reason, { timeout: 30_000 }).toBe('Pruning');
    expect([await present('lab', 'web'), await present('lab', 'shared')]).toEqual([true, true]);
    expect((await clusterObject('lab'))?.metadata.deletionTimestamp).toBeDefined();
    // Confirmed as the dashboard confirms it: the hold's objects run again at once.
    const hold = (await holds.get('fleet', 'lab'))!;
    await holds.confirm('fleet', 'lab', hold.revision, 'test', hold.decidedAt);
    for (const objectKey of hold.removed) await reconciler.queues.enqueue({ source: 'fleet', revision: hold.revision, cluster: 'lab', objectKey, reason: 'manual' });
    await expect.poll(() => present('lab', 'web'), { timeout: 60_000 }).toBe(false);
    expect(await present('lab', 'shared')).toBe(false);
    await expect.poll(() => clusterObject('lab'), { timeout: 30_000 }).toBeUndefined();
  });

  it('leaves a deleted Cluster\'s objects in place, and sends it nothing more', async () => {
    await deleteObject(admin, { group: 'tidemark.dev', kind: 'Cluster', namespace: home, name: 'edge' });
    await expect.poll(() => clusterObject('edge'), { timeout: 30_000 }).toBeUndefined();
    await repo.write('base/late.yaml', configMap('late'));
    await repo.commitAndPush('late');
    expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/fleet`, secret)).toBe(202);
    await expect.poll(() => present('mgmt', 'late'), { timeout: 60_000 }).toBe(true);
    expect(await present('edge', 'late')).toBe(false);
    expect([await present('edge', 'web'), await present('edge', 'shared')]).toEqual([true, true]);
  });
});
