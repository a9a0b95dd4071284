// Drift on the rig, through the running reconciler: watches notice hand edits, heal reverts
// them, report keeps them and explains them, and defaults and other managers are never drift.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { applyObject, ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition, type KubernetesManifest } from '@tidemark/contracts';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';

const namespace = 'drift';
const canary = 'Y2FuYXJ5LXNlY3JldC12YWx1ZQ=='; // base64 of a value that must never leave the Secret
let stack: LocalStack;
let workDir: string;
let connection: ClusterConnection;

function deployment(name: string, annotations: Record<string, string> = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
  annotations: ${JSON.stringify(annotations)}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: app
          image: nginx:1.27
`;
}

const key = (name: string) => `apps/Deployment/${namespace}/${name}`;
const replicasOf = async (name: string) => ((await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name })) as { spec?: { replicas?: number } } | undefined)?.spec?.replicas;
const statusOf = (objectKey: string) => stack.reconciler.statusStore.get('local', objectKey);
const scale = (name: string, replicas: number) => stack.plane.kubectl(['scale', 'deployment', name, '-n', namespace, `--replicas=${replicas}`]);

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-drift-'));
  const sample = join(workDir, 'sample');
  await mkdir(sample, { recursive: true });
  await writeFile(join(sample, 'ns.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await writeFile(join(sample, 'healed.yaml'), deployment('healed'));
  await writeFile(join(sample, 'reported.yaml'), deployment('reported', { 'tidemark.dev/drift': 'report' }));
  await writeFile(join(sample, 'ignored.yaml'), deployment('ignored', { 'tidemark.dev/drift-ignore': '/spec/replicas' }));
  await writeFile(join(sample, 'secret.yaml'), `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: ${namespace}\n  annotations: {tidemark.dev/drift: report}\ndata:\n  password: ${canary}\n`);
  stack = await startLocalStack({ workDir: join(workDir, 'run'), sampleDir: sample, log: createLogger('warn'), intervalMs: 600_000 });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
  await waitFor(async () => {
    const keys = [...['healed', 'reported', 'ignored'].map(key), `core/Secret/${namespace}/creds`];
    const statuses = await Promise.all(keys.map(statusOf));
    return statuses.every((status) => status?.lastAppliedRevision);
  }, 30_000);
});

async function waitFor(check: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reconciled within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
afterAll(async () => {
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('drift', () => {
  it('finds no drift in a Deployment full of server-defaulted fields', async () => {
    const live = await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'healed' });
    expect((live?.spec as { revisionHistoryLimit?: number }).revisionHistoryLimit).toBe(10); // a server default
    const status = await statusOf(key('healed'));
    expect(findCondition(status?.conditions, 'Drifted')).toMatchObject({ status: 'False', reason: 'NoDrift' });
    expect(status?.drift).toBeUndefined();
  });

  it('heals a hand edit of a managed field through the watch, and records an event', async () => {
    await scale('healed', 5);
    await expect.poll(() => replicasOf('healed'), { timeout: 10_000, interval: 100 }).toBe(2);
    // The run's one Event is written after the apply that healed it, so wait for it too.
    const events = () => stack.plane.kubectl(['get', 'events', '-n', namespace, '--field-selector', 'reason=DriftHealed', '-o', 'jsonpath={.items[*].message}']);
    await expect.poll(events, { timeout: 10_000, interval: 100 }).toMatch(/Re-applied from Git: 1 field drifted from Git: Deployment drift\/healed \/spec\/replicas \(by kubectl\)/);
  });

  it('recreates an owned object that was deleted', async () => {
    await stack.plane.kubectl(['delete', 'deployment', 'healed', '-n', namespace]);
    await expect.poll(() => replicasOf('healed'), { timeout: 10_000, interval: 100 }).toBe(2);
  });

  it('reports a hand edit under the report policy, naming the field, both values and the manager, and leaves it', async () => {
    await scale('reported', 4);
    await expect.poll(async () => findCondition((await statusOf(key('reported')))?.conditions, 'Drifted')?.status, { timeout: 10_000, interval: 100 }).toBe('True');
    const status = await statusOf(key('reported'));
    expect(status?.drift).toEqual([expect.objectContaining({ object: `Deployment ${namespace}/reported`, path: '/spec/replicas', desired: 2, live: 4, manager: 'kubectl' })]);
    expect(findCondition(status?.conditions, 'Drifted')?.message).toMatch(/1 field drifted from Git: Deployment drift\/reported \/spec\/replicas \(by kubectl\)/);
    expect(await replicasOf('reported')).toBe(4);
  });

  it('is not drift when a second controller owns a field Tidemark does not set', async () => {
    const other = connection.asManager('sidecar-injector');
    await applyObject(other, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'healed', namespace, annotations: { 'injector/version': 'v2' } } } as KubernetesManifest);
    // The change wakes the owner; give it a moment, then it must still be clean and unreverted.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const live = await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'healed' });
    expect(live?.metadata.annotations?.['injector/version']).toBe('v2');
    expect(findCondition((await statusOf(key('healed')))?.conditions, 'Drifted')?.status).toBe('False');
  });

  it('ignores a field listed in the drift-ignore annotation', async () => {
    await scale('ignored', 3);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await replicasOf('ignored')).toBe(3);
    expect(findCondition((await statusOf(key('ignored')))?.conditions, 'Drifted')?.status).toBe('False');
  });

  it('shows only that a Secret value changed, and keeps it out of the store', async () => {
    await stack.plane.kubectl(['patch', 'secret', 'creds', '-n', namespace, '--type=merge', '-p', '{"data":{"password":"b3RoZXItdmFsdWU="}}']);
    await expect.poll(async () => (await statusOf(`core/Secret/${namespace}/creds`))?.drift?.[0], { timeout: 10_000, interval: 100 })
      .toMatchObject({ path: '/data/password', desired: '[redacted]', live: 'changed' });
    const redis = new Redis(stack.redis.url);
    try {
      for (const redisKey of await redis.keys('*')) {
        const type = await redis.type(redisKey);
        const dump = type === 'hash' ? JSON.stringify(await redis.hgetall(redisKey)) : type === 'list' ? JSON.stringify(await redis.lrange(redisKey, 0, -1)) : type === 'string' ? String(await redis.get(redisKey)) : '';
        expect(dump, redisKey).not.toContain(canary);
        expect(dump, redisKey).not.toContain('b3RoZXItdmFsdWU=');
      }
    } finally {
      redis.disconnect();
    }
  });
});
