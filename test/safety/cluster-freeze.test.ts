// A cluster freeze on the rig, through the running reconciler and the dashboard API: while
// frozen, a hand edit is not healed and a push is not applied, and the objects say why; once
// unfrozen, both converge within seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { sendGithubPush } from '@tidemark/testing';
import { buildDashboard } from '../../apps/dashboard/src/build-app';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';

const namespace = 'frozen';
const secret = `hook-${randomUUID()}`;
const operator = 'operator-token-0123456789abcdef';
const viewer = 'viewer-token-0123456789abcdef';
// The drift test heals a hand edit within 10 s; a frozen cluster must still hold it well after that.
const healTimeMs = 10_000;
const marginMs = 5_000;
let stack: LocalStack;
let workDir: string;
let connection: ClusterConnection;
let redis: Redis;
let subscriber: Redis;
let dashboard: FastifyInstance;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${namespace}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: app
          image: nginx:1.27
`;
const configMap = (data: Record<string, string>) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata: ${JSON.stringify(data)}\n`;
const webKey = `apps/Deployment/${namespace}/web`;
const settingsKey = `core/ConfigMap/${namespace}/settings`;
const statusOf = (objectKey: string) => stack.reconciler.statusStore.get('local', objectKey);
const replicas = async () => ((await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' })) as { spec?: { replicas?: number } } | undefined)?.spec?.replicas;
const settings = async () => ((await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: Record<string, string> } | undefined)?.data;
const readyOf = async (objectKey: string) => findCondition((await statusOf(objectKey))?.conditions, 'Ready');
const post = (url: string, token: string, payload?: object) => dashboard.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

async function pushAndNotify(message: string): Promise<string> {
  await stack.repo.commitAndPush(message);
  const after = await stack.repo.git('rev-parse', 'HEAD');
  expect(await sendGithubPush(`http://${stack.reconciler.http.address}/hooks/sample`, secret, { ref: 'refs/heads/main', after })).toBeLessThan(300);
  return after;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-freeze-'));
  const sample = join(workDir, 'sample');
  await mkdir(sample, { recursive: true });
  await writeFile(join(sample, 'ns.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await writeFile(join(sample, 'web.yaml'), deployment);
  await writeFile(join(sample, 'settings.yaml'), configMap({ level: 'info' }));
  // A long poll interval: a push lands through the webhook only.
  stack = await startLocalStack({ workDir: join(workDir, 'run'), sampleDir: sample, log: createLogger('warn'), intervalMs: 600_000, webhookSecret: secret, controllers: false });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
  redis = new Redis(stack.redis.url);
  subscriber = new Redis(stack.redis.url);
  dashboard = await buildDashboard({
    statusStore: stack.reconciler.statusStore, queues: stack.reconciler.queues, redis, subscriber, clusters: ['local'],
    auth: { sessionSecret: 'a-test-session-secret-of-32-characters-or-more', tokens: [{ name: 'vera', role: 'viewer', token: viewer }, { name: 'otto', role: 'operator', token: operator }] },
  });
  await dashboard.ready();
  await waitFor(async () => (await Promise.all([webKey, settingsKey].map(statusOf))).every((status) => status?.lastAppliedRevision), 30_000);
});

async function waitFor(check: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reconciled within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
afterAll(async () => {
  await dashboard?.close();
  redis?.disconnect();
  subscriber?.disconnect();
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('cluster freeze', () => {
  it('refuses a viewer, and a freeze without a reason', async () => {
    expect((await post('/api/clusters/local/freeze', viewer, { reason: 'no' })).statusCode).toBe(403);
    expect((await post('/api/clusters/local/freeze', operator, { reason: '' })).statusCode).toBe(400);
    expect((await post('/api/clusters/local/freeze', operator, { reason: '   ' })).statusCode).toBe(400);
    expect((await post('/api/clusters/nowhere/freeze', operator, { reason: 'x' })).statusCode).toBe(404);
  });

  it('does not heal a hand edit or apply a push while frozen, and says why', async () => {
    const frozen = await post('/api/clusters/local/freeze', operator, { reason: 'incident 7: database failover' });
    expect(frozen.statusCode).toBe(200);
    expect(frozen.json()).toMatchObject({ action: 'freeze', cluster: 'local', frozen: true, freeze: { by: 'otto', reason: 'incident 7: database failover' } });

    await stack.plane.kubectl(['scale', 'deployment', 'web', '-n', namespace, '--replicas=5']);
    await stack.plane.kubectl(['patch', 'configmap', 'settings', '-n', namespace, '--type=merge', '-p', '{"data":{"level":"by-hand"}}']);
    // The watch wakes both; each run stops at the freeze and says so.
    for (const objectKey of [webKey, settingsKey]) {
      await expect.poll(async () => (await readyOf(objectKey))?.reason, { timeout: 15_000, interval: 200 }).toBe('ClusterFrozen');
      expect((await readyOf(objectKey))?.message).toMatch(/frozen by otto since \d{4}-\d\d-\d\dT[^:]+:[^ ]+: incident 7: database failover/);
    }
    await new Promise((resolve) => setTimeout(resolve, healTimeMs + marginMs));
    expect(await replicas()).toBe(5);
    expect((await settings())?.level).toBe('by-hand');

    await stack.repo.write('settings.yaml', configMap({ level: 'info', pushed: 'during-freeze' }));
    const head = await pushAndNotify('a change pushed during the freeze');
    await expect.poll(async () => (await statusOf(settingsKey))?.lastAttemptedRevision, { timeout: 15_000, interval: 200 }).toBe(head);
    expect((await readyOf(settingsKey))?.reason).toBe('ClusterFrozen');
    expect((await settings())?.pushed).toBeUndefined();

    const clusters = await dashboard.inject({ method: 'GET', url: '/api/clusters', headers: { authorization: `Bearer ${viewer}` } });
    expect(clusters.json().clusters[0]).toMatchObject({ name: 'local', freeze: { by: 'otto', reason: 'incident 7: database failover' } });
    const page = await dashboard.inject({ method: 'GET', url: '/clusters/local', headers: { authorization: `Bearer ${viewer}` } });
    expect(page.body).toMatch(/frozen<\/span> by otto since .*: incident 7: database failover/);
  }, 90_000);

  it('heals the hand edits and applies the push within seconds of the unfreeze', async () => {
    const lifted = await post('/api/clusters/local/unfreeze', operator);
    expect(lifted.statusCode).toBe(200);
    expect(lifted.json()).toMatchObject({ action: 'unfreeze', frozen: false });
    expect(lifted.json().woken).toBeGreaterThanOrEqual(2);
    await expect.poll(replicas, { timeout: 10_000, interval: 100 }).toBe(2);
    await expect.poll(settings, { timeout: 10_000, interval: 100 }).toEqual({ level: 'info', pushed: 'during-freeze' });
    await expect.poll(async () => (await readyOf(settingsKey))?.reason, { timeout: 10_000, interval: 200 }).not.toBe('ClusterFrozen');
  }, 30_000);
});
