// Day-2 actions from the dashboard, on the rig with real controllers: a rollout restart rolls the
// ReplicaSet and the object stays Ready with no drift; a CronJob runs now; a workload's Pods show
// with their Events. Each needs the operator role and a scope covering the object, acts only on
// what the cluster proves Tidemark applied, and is in the audit trail with an Event on the object;
// so is a done suspend (audit-events.ts), and a refused one is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterConnection, listObjects } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { AuditLog } from '@tidemark/status-store';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

const namespace = 'daytwo';
const scopedToken = 'scoped-token-0123456789abcdef';
let stack: LocalStack;
let dashboard: DashboardFixture;
let connection: ClusterConnection;
let workDir: string;

const web = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${namespace}
spec:
  replicas: 1
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
const nightly = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: ${namespace}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: task
              image: busybox:1.36
              command: [sh, -c, "echo done"]
`;

const path = (kind: string, name: string, group = 'apps') => `/api/objects/local/${group}/${kind}/${namespace}/${name}`;
const post = (url: string, token: string) => dashboard.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` } });
const replicaSets = async () => (await listObjects(connection, 'apps/v1', 'ReplicaSet', namespace, { app: 'web' })).map((set) => set.metadata.name).sort();
const statusOf = (objectKey: string) => stack.reconciler.statusStore.get('local', objectKey);

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-daytwo-'));
  const sample = join(workDir, 'sample');
  await mkdir(sample, { recursive: true });
  await writeFile(join(sample, 'ns.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await writeFile(join(sample, 'web.yaml'), web);
  await writeFile(join(sample, 'nightly.yaml'), nightly);
  stack = await startLocalStack({ workDir: join(workDir, 'run'), sampleDir: sample, log: createLogger('warn'), intervalMs: 600_000 });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
  dashboard = await startDashboardFixture(stack.redis.url, {
    store: stack.reconciler.statusStore, prefix: stack.reconciler.statusStore.keys.prefix, clusters: ['local'],
    clusterConnections: new Map([['local', ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig, fieldManager: 'tidemark-dashboard' })]]),
    tokens: [{ name: 'scoped', role: 'operator', token: scopedToken, scope: { sources: [], namespaces: ['elsewhere'], clusters: [] } }],
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = findCondition((await statusOf(`apps/Deployment/${namespace}/web`))?.conditions, 'Ready')?.status === 'True';
    if (ready && (await statusOf(`batch/CronJob/${namespace}/nightly`))?.lastAppliedRevision) break;
    if (Date.now() > deadline) throw new Error('the sample was not Ready within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 180_000);

afterAll(async () => {
  await dashboard?.stop();
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('day-2 actions', () => {
  it('restarts a managed Deployment: the ReplicaSet rolls, the object stays Ready and nothing is drift', async () => {
    const before = await replicaSets();
    expect(before).toHaveLength(1);
    const answer = await post(`${path('Deployment', 'web')}/restart`, operatorToken);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toMatchObject({ action: 'restart', target: `Deployment ${namespace}/web` });
    // The deployment controller makes a second ReplicaSet for the new template.
    await expect.poll(async () => (await replicaSets()).length, { timeout: 30_000, interval: 250 }).toBe(2);
    // Tidemark looks again (the watch sees the change): still Ready, and the annotation is not drift.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const status = await statusOf(`apps/Deployment/${namespace}/web`);
    expect(findCondition(status?.conditions, 'Drifted')?.status ?? 'False').toBe('False');
    await expect.poll(async () => findCondition((await statusOf(`apps/Deployment/${namespace}/web`))?.conditions, 'Ready')?.status, { timeout: 60_000, interval: 250 }).toBe('True');
    const deployment = (await listObjects(connection, 'apps/v1', 'Deployment', namespace))[0];
    const template = deployment?.spec as { template: { metadata: { annotations?: Record<string, string> } } };
    expect(template.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toBe((answer.json() as { restartedAt: string }).restartedAt);
  });

  it('records who restarted it, as an audit record and an Event on the Deployment', async () => {
    const records = await new AuditLog({ redis: dashboard.redis, prefix: stack.reconciler.statusStore.keys.prefix }).list({ limit: 20 });
    expect(records.find((record) => record.action === 'object.restart')).toMatchObject({ actor: { name: 'otto', role: 'operator' }, result: 'ok', target: { type: 'object', cluster: 'local', name: `apps/Deployment/${namespace}/web` } });
    const events = await stack.plane.kubectl(['get', 'events', '-n', namespace, '--field-selector', 'reason=RolloutRestarted', '-o', 'jsonpath={.items[*].message}']);
    expect(events).toContain('Rollout restart by otto from the Tidemark dashboard');
  });

  it('runs a managed CronJob now', async () => {
    const answer = await post(`${path('CronJob', 'nightly', 'batch')}/run-job`, operatorToken);
    expect(answer.statusCode, answer.body).toBe(200);
    const { job } = answer.json() as { job: string };
    expect(job).toMatch(/^nightly-manual-\d+$/);
    const jobs = await listObjects(connection, 'batch/v1', 'Job', namespace);
    const owners = jobs.find((item) => item.metadata.name === job)?.metadata.ownerReferences as { kind: string; name: string }[] | undefined;
    expect(owners?.[0]).toMatchObject({ kind: 'CronJob', name: 'nightly' });
  });

  it('shows the Pods of a managed Deployment with their Events', async () => {
    const answer = await dashboard.app.inject({ method: 'GET', url: `${path('Deployment', 'web')}/pods`, headers: { authorization: `Bearer ${operatorToken}` } });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json() as { pods: { name: string; containers: { name: string; log?: string; logError?: string }[] }[]; events: { reason: string }[] };
    expect(body.pods.length).toBeGreaterThan(0);
    expect(body.pods[0]?.containers[0]?.name).toBe('app');
    // KWOK's simulated nodes run no kubelet, so the log read fails: the error is shown, bounded (stand-in for a real node's log).
    expect(body.pods[0]?.containers[0]?.log ?? body.pods[0]?.containers[0]?.logError).toBeDefined();
    expect(body.events.map((event) => event.reason)).toContain('RolloutRestarted');
  });

  it('refuses a viewer (403, audited as denied), a scope that does not cover the object (404), and a kind it cannot restart (400)', async () => {
    expect((await post(`${path('Deployment', 'web')}/restart`, viewerToken)).statusCode).toBe(403);
    expect((await post(`${path('Deployment', 'web')}/restart`, scopedToken)).statusCode).toBe(404);
    expect((await post(`${path('CronJob', 'nightly', 'batch')}/restart`, operatorToken)).statusCode).toBe(400);
    const records = await new AuditLog({ redis: dashboard.redis, prefix: stack.reconciler.statusStore.keys.prefix }).list({ limit: 20 });
    expect(records.find((record) => record.action === 'object.restart' && record.actor.name === 'vera')?.result).toBe('denied');
  });

  it('acts only on a live object the cluster proves Tidemark applied for that Git object, whatever Redis says', async () => {
    // A Deployment made by hand, and a forged record claiming Tidemark applied it from Git.
    await stack.plane.kubectl(['create', 'deployment', 'handmade', '-n', namespace, '--image=nginx:1.27']);
    await stack.reconciler.statusStore.put(seededStatus('local', 'Deployment', namespace, 'handmade', { source: 'sample' }));
    const answer = await post(`${path('Deployment', 'handmade')}/restart`, operatorToken);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ message: expect.stringMatching(/not one Tidemark applied for apps\/Deployment\/daytwo\/handmade/) });
    const template = (await listObjects(connection, 'apps/v1', 'Deployment', namespace)).find((item) => item.metadata.name === 'handmade')?.spec as { template: { metadata: { annotations?: Record<string, string> } } };
    expect(template.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toBeUndefined();
  });

  it('leaves an Event naming the operator on the live object a done suspend touched; a refused one, or an unproven object, gets none', async () => {
    type Event = { reason: string; message: string; type: string; involvedObject: { kind: string; name: string } };
    const suspendedEvents = async () => (JSON.parse(await stack.plane.kubectl(['get', 'events', '-n', namespace, '--field-selector', 'reason=SuspendedByOperator', '-o', 'json'])) as { items: Event[] }).items;
    // Done, but on a record the cluster does not prove (the hand-made Deployment above): no Event.
    expect((await post(`${path('Deployment', 'handmade')}/suspend`, operatorToken)).statusCode).toBe(200);
    // Refused: in the audit trail as denied, and no Event.
    expect((await post(`${path('Deployment', 'web')}/suspend`, viewerToken)).statusCode).toBe(403);
    const answer = await post(`${path('Deployment', 'web')}/suspend`, operatorToken);
    expect(answer.statusCode, answer.body).toBe(200);
    // The Event is written after the answer (the answer never waits for the cluster).
    await expect.poll(async () => (await suspendedEvents()).length, { timeout: 30_000, interval: 250 }).toBeGreaterThan(0);
    const events = await suspendedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Normal', involvedObject: { kind: 'Deployment', name: 'web' }, message: expect.stringMatching(/^Suspended by otto, operator, through a bearer token \(API or CLI\)/) });
    const records = await new AuditLog({ redis: dashboard.redis, prefix: stack.reconciler.statusStore.keys.prefix }).list({ action: 'object.suspend', limit: 20 });
    expect(records.find((record) => record.actor.name === 'vera')?.result).toBe('denied');
    expect((await post(`${path('Deployment', 'web')}/resume`, operatorToken)).statusCode).toBe(200);
  });
});
