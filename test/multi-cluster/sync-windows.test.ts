// Sync windows on four real control planes (canary, staging, prod-a, prod-b), with the clock
// injected (never slept to a time of day): a deny window on the prod clusters holds a push and a
// hand edit there while canary and staging take the push; an operator's reconcile passes the
// window (manualSync) for one object; when the clock moves past the window's end, prod converges.
// Every check reads the live objects; the notifications go over real HTTP to a loopback receiver
// that checks their HMAC.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { buildDashboard } from '../../apps/dashboard/src/build-app';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startReceiver, type Receiver } from '../notify/receiver';

const namespace = 'windows';
const secret = `hook-${randomUUID()}`;
const prefix = `windows-${randomUUID().slice(0, 8)}`;
const operator = 'operator-token-0123456789abcdef';
const hmacKey = `key-${randomUUID()}`;
let receiver: Receiver;
// 2026-03-31 is a Tuesday; Berlin is UTC+2 then. The deny window is 09:00–16:00 Berlin, every day.
let now = new Date('2026-03-31T06:00:00Z');
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let redis: Redis;
let subscriber: Redis;
let dashboard: FastifyInstance;
const connections = new Map<string, ClusterConnection>();
const clusters = ['canary', 'staging', 'prod-a', 'prod-b'];
const prods = ['prod-a', 'prod-b'];

const configMap = (name: string, level: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { level } });
const levelOn = async (cluster: string, name: string) => ((await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name }).catch(() => undefined)) as { data?: { level?: string } } | undefined)?.data?.level;
const statusOn = (cluster: string, name: string) => reconciler.statusStore.get(cluster, `core/ConfigMap/${namespace}/${name}`);
const readyOn = async (cluster: string, name: string) => findCondition((await statusOn(cluster, name))?.conditions, 'Ready');
const metric = async (name: string, cluster = 'prod-a') => {
  const text = await (await fetch(`http://${reconciler.http.address}/metrics`)).text();
  return Number(new RegExp(`^${name}\\{cluster="${cluster}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
};

async function pushAndNotify(message: string): Promise<string> {
  await repo.commitAndPush(message);
  const after = await repo.git('rev-parse', 'HEAD');
  expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/apps`, secret, { ref: 'refs/heads/main', after })).toBeLessThan(300);
  return after;
}

beforeAll(async () => {
  planes = await startControlPlanes(4, 'windows');
  receiver = await startReceiver({ '/ops': hmacKey });
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-windows-'));
  git = await startGitServer();
  const url = await git.createRepository('apps');
  repo = await git.workingCopy('apps');
  await repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('web.yaml', configMap('web', 'v1'));
  await repo.write('settings.yaml', configMap('settings', 'v1'));
  await repo.commitAndPush('apps v1');
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: clusters.map((name, index) => ({ name, labels: { tier: name.replace(/-.*/, '') }, kubeconfig: planes[index]!.kubeconfigPath })),
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'apps', provider: 'github', secret: { env: 'APPS_SECRET' } }],
    syncWindows: [{ name: 'office', kind: 'deny', schedule: '0 9 * * *', duration: '7h', timeZone: 'Europe/Berlin', clusterSelector: { matchLabels: { tier: 'prod' } }, manualSync: true }],
    // Held objects look again every second (by the real clock); the window's end is read from the injected one.
    syncWindowRecheckMs: 1_000,
    notifications: {
      pollIntervalMs: 300,
      providers: [{ name: 'ops', type: 'webhook', address: { env: 'OPS_URL' }, hmacKey: { env: 'OPS_KEY' } }],
      alerts: [{ name: 'windows', providers: ['ops'], events: ['SyncWindowHolding', 'SyncWindowOpen'] }],
    },
  }));
  const env = { TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), APPS_SECRET: secret, OPS_URL: receiver.url('/ops'), OPS_KEY: hmacKey };
  reconciler = await startReconciler(loadConfig(env), createLogger('error'), { clock: () => now });
  clusters.forEach((cluster, index) => connections.set(cluster, ClusterConnection.connect({ cluster, kubeconfig: planes[index]!.kubeconfig })));
  redis = new Redis(inject('redisUrl'));
  subscriber = new Redis(inject('redisUrl'));
  dashboard = await buildDashboard({
    statusStore: reconciler.statusStore, queues: reconciler.queues, redis, subscriber, clusters,
    auth: { sessionSecret: 'a-test-session-secret-of-32-characters-or-more', tokens: [{ name: 'otto', role: 'operator', token: operator }] },
  });
  await dashboard.ready();
});

afterAll(async () => {
  await dashboard?.close();
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  subscriber?.disconnect();
  await git?.stop();
  await receiver?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

const reasons = () => receiver.received('/ops').map((request) => `${String(request.body.cluster)} ${String(request.body.reason)}`).sort();

describe('a deny window on the prod clusters', () => {
  it('lets everything through before it opens', async () => {
    for (const cluster of clusters) {
      for (const name of ['web', 'settings']) await expect.poll(() => levelOn(cluster, name), { timeout: 60_000, interval: 200 }).toBe('v1');
    }
    expect(await metric('tidemark_sync_window_holding')).toBe(0);
    expect(receiver.received('/ops')).toEqual([]);
  }, 120_000);

  it('holds a push and a hand edit on prod while canary and staging take the push, and says why', async () => {
    now = new Date('2026-03-31T08:00:00Z');
    for (const plane of [planes[2]!, planes[3]!]) await plane.kubectl(['patch', 'configmap', 'web', '-n', namespace, '--type=merge', '-p', '{"data":{"level":"by-hand"}}']);
    await repo.write('web.yaml', configMap('web', 'v2'));
    await repo.write('settings.yaml', configMap('settings', 'v2'));
    const head = await pushAndNotify('apps v2');
    for (const cluster of ['canary', 'staging']) {
      for (const name of ['web', 'settings']) await expect.poll(() => levelOn(cluster, name), { timeout: 30_000, interval: 200 }).toBe('v2');
    }
    for (const cluster of prods) {
      for (const name of ['web', 'settings']) {
        await expect.poll(async () => (await statusOn(cluster, name))?.lastAttemptedRevision, { timeout: 30_000, interval: 200 }).toBe(head);
        const ready = await readyOn(cluster, name);
        expect(ready?.reason).toBe('SyncWindowClosed');
        expect(ready?.message).toContain(`Sync window: deny window "office" until 16:00 Europe/Berlin. Nothing from source apps is applied or pruned on cluster ${cluster}`);
      }
    }
    // The dashboard's object page says why it waits.
    const page = await dashboard.inject({ method: 'GET', url: `/objects/prod-a/core/ConfigMap/${namespace}/web`, headers: { authorization: `Bearer ${operator}` } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/SyncWindowClosed[\s\S]*deny window (&quot;|&#34;|")office(&quot;|&#34;|") until 16:00 Europe\/Berlin/);
    // Held runs look again every second: a few of them leave prod as it was.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    for (const cluster of prods) {
      expect(await levelOn(cluster, 'web'), cluster).toBe('by-hand');
      expect(await levelOn(cluster, 'settings'), cluster).toBe('v1');
      expect(await metric('tidemark_sync_window_holding', cluster)).toBe(1);
    }
    expect(await metric('tidemark_sync_window_holding', 'staging')).toBe(0);
    await expect.poll(reasons, { timeout: 15_000, interval: 200 }).toEqual(['prod-a SyncWindowHolding', 'prod-b SyncWindowHolding']);
    expect(receiver.received('/ops')[0]).toMatchObject({ signed: true, body: { message: expect.stringContaining('deny window "office" until 16:00 Europe/Berlin') } });
  }, 120_000);

  it('lets an operator\'s reconcile of one object through, and only that one', async () => {
    const asked = await dashboard.inject({ method: 'POST', url: `/api/objects/prod-a/core/ConfigMap/${namespace}/settings/reconcile`, headers: { authorization: `Bearer ${operator}` } });
    expect(asked.statusCode).toBe(200);
    await expect.poll(() => levelOn('prod-a', 'settings'), { timeout: 30_000, interval: 200 }).toBe('v2');
    expect(await levelOn('prod-a', 'web')).toBe('by-hand');
    expect(await levelOn('prod-b', 'settings')).toBe('v1');
  }, 60_000);

  it('counts the time prod is held, and heals prod once the clock passes the window\'s end', async () => {
    now = new Date('2026-03-31T10:00:00Z');
    await expect.poll(() => metric('tidemark_sync_window_held_seconds_total'), { timeout: 15_000, interval: 200 }).toBeGreaterThanOrEqual(7_200);
    expect(await levelOn('prod-b', 'web')).toBe('by-hand');
    now = new Date('2026-03-31T14:00:00Z');
    for (const cluster of prods) {
      for (const name of ['web', 'settings']) await expect.poll(() => levelOn(cluster, name), { timeout: 30_000, interval: 200 }).toBe('v2');
      await expect.poll(async () => (await readyOn(cluster, 'web'))?.reason, { timeout: 30_000, interval: 200 }).not.toBe('SyncWindowClosed');
      // The gauge moves at the monitor's next look (every few seconds), which may come after the objects' own recheck.
      await expect.poll(() => metric('tidemark_sync_window_holding', cluster), { timeout: 15_000, interval: 200 }).toBe(0);
    }
    await expect.poll(reasons, { timeout: 15_000, interval: 200 }).toEqual(['prod-a SyncWindowHolding', 'prod-a SyncWindowOpen', 'prod-b SyncWindowHolding', 'prod-b SyncWindowOpen']);
  }, 120_000);
});
