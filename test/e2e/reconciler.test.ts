// The whole reconciler end to end: the sample repository through the real poller, webhook,
// BullMQ queue, workers and pipeline into a full control plane (real controllers, scheduler and
// KWOK nodes), with watches for ConfigWatcher.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClusterConnection, getObject, listObjects } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { sendGithubPush } from '@tidemark/testing';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';

const sampleDir = fileURLToPath(new URL('../../examples/sample-repo', import.meta.url));
const secret = `hook-${randomUUID()}`;
const namespace = 'tidemark-demo';
let stack: LocalStack;
let workDir: string;
let connection: ClusterConnection;

async function pushAndNotify(message: string): Promise<void> {
  await stack.repo.commitAndPush(message);
  const after = await stack.repo.git('rev-parse', 'HEAD');
  expect(await sendGithubPush(`http://${stack.reconciler.http.address}/hooks/sample`, secret, { ref: 'refs/heads/main', after })).toBeLessThan(300);
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-e2e-'));
  // A long poll interval: anything that lands quickly came through the webhook or a watch.
  stack = await startLocalStack({ workDir, sampleDir, log: createLogger('warn'), intervalMs: 600_000, webhookSecret: secret });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
});
afterAll(async () => {
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('tidemark reconciler', () => {
  it('reconciles every kind of the sample repository', async () => {
    await expect.poll(async () => (await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'shop' }))?.metadata.name, { timeout: 30_000 }).toBe('shop');
    await expect.poll(async () => (await getObject(connection, { apiVersion: 'k8spatterns.com/v1', kind: 'ConfigWatcher', namespace, name: 'webapp-config-watcher' }))?.metadata.name, { timeout: 30_000 }).toBe('webapp-config-watcher');
    await expect.poll(async () => (await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }))?.metadata.name, { timeout: 30_000 }).toBe('settings');
    const shop = await stack.plane.kubectl(['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status.observedGeneration}']);
    expect(shop).toBe('1');
  });

  it('applies a pushed change at once when the webhook arrives', async () => {
    await stack.repo.write('plain/settings.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  log-level: debug\n`);
    await pushAndNotify('debug logging');
    await expect.poll(async () => ((await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: Record<string, string> } | undefined)?.data?.['log-level'], { timeout: 15_000 }).toBe('debug');
  });

  it('the sample WebApp goes Ready with its Deployment rolled out and its pods Running', async () => {
    await expect.poll(async () => stack.plane.kubectl(['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']), { timeout: 90_000 }).toBe('True');
    const running = (await listObjects(connection, 'v1', 'Pod', namespace, { 'app.kubernetes.io/name': 'shop' })) as (KubernetesManifest & { status?: { phase?: string } })[];
    expect(running.map((pod) => pod.status?.phase)).toEqual(['Running', 'Running']);
  });

  it('restarts the selected pods when the watched ConfigMap is changed by hand, and the Deployment brings them back', async () => {
    await expect.poll(async () => {
      const status = await stack.reconciler.statusStore.get('local', `k8spatterns.com/ConfigWatcher/${namespace}/webapp-config-watcher`);
      return typeof status?.kindStatus?.lastConfigMapHash;
    }, { timeout: 30_000 }).toBe('string');
    const runningWebapp = async () => ((await listObjects(connection, 'v1', 'Pod', namespace, { app: 'webapp' })) as (KubernetesManifest & { status?: { phase?: string } })[])
      .filter((pod) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp).map((pod) => pod.metadata.name);
    await expect.poll(runningWebapp, { timeout: 60_000 }).toHaveLength(1);
    const [before] = await runningWebapp();
    await stack.plane.kubectl(['patch', 'configmap', 'webapp-config', '-n', namespace, '--type=merge', '-p', '{"data":{"message":"Greets from your smooth operator!"}}']);
    await expect.poll(async () => {
      const now = await runningWebapp();
      return now.length === 1 && now[0] !== before;
    }, { timeout: 60_000 }).toBe(true);
  });

  it('prunes what is removed from Git', async () => {
    await stack.repo.delete('plain/settings.yaml');
    await pushAndNotify('drop settings');
    await expect.poll(async () => getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }), { timeout: 15_000 }).toBeUndefined();
  });
});
