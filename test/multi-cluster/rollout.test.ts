// Rollouts in waves on four real control planes (canary, staging, prod-a, prod-b). `canary` is a full
// control plane (controllers, scheduler, KWOK nodes), so its Deployment really rolls out and a bad one
// really never becomes available. Every check reads the live objects; the rollout record is read only
// to order a live reading against the moment the canary gate passed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { RecordKeys, pushRolloutCommand, readRolloutRecord, type RolloutRecord } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { Redis } from 'ioredis';

const namespace = 'rollout';
const secret = `hook-${randomUUID()}`;
const prefix = `rollout-${randomUUID().slice(0, 8)}`;
const clusterNames = ['canary', 'staging', 'prod-a', 'prod-b'] as const;
const stages: Record<string, string> = { canary: 'canary', staging: 'staging', 'prod-a': 'prod', 'prod-b': 'prod' };
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let redis: Redis;
const keys = new RecordKeys(prefix);
const connections = new Map<string, ClusterConnection>();
const revisions: string[] = [];

const settings = (version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { version } });
// A Deployment for canary only (the full control plane); `stuck` pins its pods to a node that does not exist.
const web = (version: string, stuck = false) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'web', namespace, annotations: { 'tidemark.dev/cluster-selector': 'stage=canary', ...(stuck ? { 'tidemark.dev/health-timeout': '15s' } : {}) } },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'registry.example/web:1', env: [{ name: 'VERSION', value: version }] }], ...(stuck ? { nodeSelector: { 'no-such-node': 'true' } } : {}) } },
  },
});

const liveVersion = async (cluster: string) => ((await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }).catch(() => undefined)) as { data?: { version?: string } } | undefined)?.data?.version;
const liveWeb = async () => (await getObject(connections.get('canary')!, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' }).catch(() => undefined)) as
  { spec: { template: { spec: { nodeSelector?: Record<string, string>; containers: { env: { value: string }[] }[] } } }; status?: { availableReplicas?: number; updatedReplicas?: number } } | undefined;
const present = async (cluster: string, name: string) => Boolean(await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name }).catch(() => undefined));
const record = async (): Promise<RolloutRecord | undefined> => readRolloutRecord(redis, keys, 'apps');

async function push(message: string): Promise<string> {
  const revision = await repo.commitAndPush(message);
  revisions.push(revision);
  expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/apps`, secret)).toBe(202);
  return revision;
}

beforeAll(async () => {
  planes = await startControlPlanes(clusterNames.length, 'rollout', [0]);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-rollout-'));
  git = await startGitServer();
  const url = await git.createRepository('apps');
  repo = await git.workingCopy('apps');
  await repo.write('base/ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('apps/settings.yaml', settings('1'));
  await repo.write('apps/web.yaml', web('1'));
  revisions.push(await repo.commitAndPush('first'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: clusterNames.map((name, index) => ({ name, labels: { stage: stages[name] }, kubeconfig: planes[index]!.kubeconfigPath })),
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'apps', provider: 'github', secret: { env: 'APPS_SECRET' } }],
    rollouts: [{
      source: 'apps',
      waves: [
        { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 300_000 },
        { name: 'staging', clusterSelector: { matchLabels: { stage: 'staging' } } },
        { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, maxParallel: 1 },
      ],
    }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), APPS_SECRET: secret }), createLogger('error'), { rollouts: { tickMs: 200 } });
  clusterNames.forEach((name, index) => connections.set(name, ClusterConnection.connect({ cluster: name, kubeconfig: planes[index]!.kubeconfig })));
  redis = new Redis(inject('redisUrl'));
});

afterAll(async () => {
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe('a rollout in waves over four control planes', () => {
  it('rolls a first revision out wave by wave until every cluster has it', async () => {
    await expect.poll(async () => (await record())?.phase, { timeout: 240_000, interval: 500 }).toBe('complete');
    for (const cluster of clusterNames) expect(await liveVersion(cluster), cluster).toBe('1');
    expect((await liveWeb())?.status?.availableReplicas).toBe(1);
  });

  it('takes a good commit through the waves in order, and changes no prod object before the canary gate passed', async () => {
    await repo.write('apps/settings.yaml', settings('2'));
    await repo.write('apps/web.yaml', web('2'));
    const revision = await push('settings 2, web 2');
    // Sample the live objects until every cluster has the new settings. When a cluster is first seen at
    // version 2, the record read after that reading must already show every cluster of the earlier waves
    // (and prod-a before prod-b: maxParallel 1) Ready: the driver writes a gate's pass before it queues
    // the next wave's jobs, so this holds however coarse the sampling is.
    const earlier: Record<string, string[]> = { canary: [], staging: ['canary'], 'prod-a': ['canary', 'staging'], 'prod-b': ['canary', 'staging', 'prod-a'] };
    const seen = new Set<string>();
    const changedBeforeEarlierGates: string[] = [];
    for (let sample = 0; seen.size < clusterNames.length && sample < 2_000; sample += 1) {
      for (const cluster of clusterNames) {
        if (seen.has(cluster) || (await liveVersion(cluster)) !== '2') continue;
        seen.add(cluster);
        const after = await record();
        const notReady = earlier[cluster]!.filter((before) => after?.revision !== revision || after.cells[before]?.state !== 'ready');
        if (notReady.length > 0) changedBeforeEarlierGates.push(`${cluster} before ${notReady.join(', ')}`);
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    expect([...seen].sort()).toEqual([...clusterNames].sort());
    expect(changedBeforeEarlierGates).toEqual([]);
    // And each wave was reached only after the one before it passed its gate.
    const cells = (await record())!.cells;
    for (const [cluster, before] of Object.entries(earlier)) {
      for (const previous of before) expect(Date.parse(cells[cluster]!.reachedAt!), `${cluster} after ${previous}`).toBeGreaterThanOrEqual(Date.parse(cells[previous]!.readyAt!));
    }
    // Canary's Deployment is at the new revision: its Ready at that revision was part of canary's gate.
    expect((await liveWeb())?.spec.template.spec.containers[0]?.env[0]?.value).toBe('2');
    await expect.poll(async () => (await record())?.phase, { timeout: 120_000 }).toBe('complete');
  });

  it('halts a bad commit after canary, leaves staging and prod untouched, and heals their drift at their own revision', async () => {
    await repo.write('apps/settings.yaml', settings('3'));
    await repo.write('apps/web.yaml', web('3', true));
    await repo.write('apps/extra.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', namespace }, data: { added: 'by the bad commit' } }));
    const bad = await push('settings 3, an extra ConfigMap, web that never becomes available');
    await expect.poll(async () => (await record())?.phase, { timeout: 180_000, interval: 500 }).toBe('halted');
    const halted = (await record())!;
    expect(halted.revision).toBe(bad);
    expect(halted.halt).toMatchObject({ cluster: 'canary', objectKey: `apps/Deployment/${namespace}/web`, reason: expect.stringMatching(/HealthCheckFailed/) });
    expect(await (await fetch(`http://${reconciler.http.address}/metrics`)).text()).toContain('tidemark_rollouts_halted_total{source="apps",wave="canary"} 1');
    expect(await liveVersion('canary')).toBe('3');
    expect(await present('canary', 'extra')).toBe(true);
    expect((await liveWeb())?.spec.template.spec.nodeSelector).toEqual({ 'no-such-node': 'true' });
    for (const cluster of ['staging', 'prod-a', 'prod-b']) {
      expect(await liveVersion(cluster), cluster).toBe('2');
      expect(await present(cluster, 'extra'), cluster).toBe(false);
      expect((await reconciler.statusStore.get(cluster, `core/ConfigMap/${namespace}/settings`))?.lastAppliedRevision, cluster).toBe(revisions.at(-2));
    }
    // A hand edit on prod is healed back to prod's target (2), not to the head (3).
    // (The heal may land before any read here: kubectl's answer is the proof the edit happened.)
    expect(await planes[2]!.kubectl(['patch', 'configmap', 'settings', '-n', namespace, '--type', 'merge', '-p', '{"data":{"version":"by-hand"}}'])).toMatch(/configmap\/settings patched\n?$/);
    await expect.poll(() => liveVersion('prod-a'), { timeout: 60_000 }).toBe('2');
  });

  it('abort returns canary to the previous revision', async () => {
    await pushRolloutCommand(redis, keys, 'apps', { verb: 'abort', by: 'rig', at: new Date().toISOString() });
    await expect.poll(async () => (await record())?.phase, { timeout: 60_000 }).toBe('aborted');
    await expect.poll(() => liveVersion('canary'), { timeout: 60_000 }).toBe('2');
    // What the aborted revision added is pruned, through the pipeline's prune guards.
    await expect.poll(() => present('canary', 'extra'), { timeout: 60_000 }).toBe(false);
    await expect.poll(async () => (await liveWeb())?.spec.template.spec.nodeSelector, { timeout: 60_000 }).toBeUndefined();
    await expect.poll(async () => (await liveWeb())?.status?.availableReplicas, { timeout: 120_000 }).toBe(1);
    expect((await liveWeb())?.spec.template.spec.containers[0]?.env[0]?.value).toBe('2');
    for (const cluster of ['staging', 'prod-a', 'prod-b']) expect(await liveVersion(cluster), cluster).toBe('2');
  });
});
