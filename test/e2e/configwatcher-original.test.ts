// The original ConfigWatcher example end to end, as the example ran it, on a full control plane
// (real deployment and replicaset controllers, scheduler, KWOK nodes) through the whole
// reconciler: a Deployment `webapp` with pods labelled app=webapp, the ConfigMap `webapp-config`,
// and the example's CR, verbatim, in its namespace `operator-test`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClusterConnection, getObject, listObjects } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { sendGithubPush } from '@tidemark/testing';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';

const seedDir = fileURLToPath(new URL('../../examples/seed-configwatcher/', import.meta.url));
const namespace = 'operator-test';
const secret = `hook-${randomUUID()}`;
const watcherKey = `k8spatterns.com/ConfigWatcher/${namespace}/webapp-config-watcher`;
let stack: LocalStack;
let workDir: string;
let connection: ClusterConnection;

type Pod = KubernetesManifest & { metadata: { ownerReferences?: { kind: string; name: string }[] }; status?: { phase?: string } };

// The ConfigMap reports drift instead of healing it, so a hand edit stays, as in the example.
const configMap = (message: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: webapp-config
  namespace: ${namespace}
  annotations:
    tidemark.dev/drift: report
data:
  message: "${message}"
`;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: webapp
  namespace: ${namespace}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: webapp
  template:
    metadata:
      labels:
        app: webapp
    spec:
      containers:
        - name: app
          image: k8spatterns/mini-http-server
          env:
            - name: MESSAGE
              valueFrom:
                configMapKeyRef:
                  name: webapp-config
                  key: message
`;

async function pushAndNotify(message: string): Promise<void> {
  await stack.repo.commitAndPush(message);
  const after = await stack.repo.git('rev-parse', 'HEAD');
  expect(await sendGithubPush(`http://${stack.reconciler.http.address}/hooks/sample`, secret, { ref: 'refs/heads/main', after })).toBeLessThan(300);
}

const webappPods = async () => (await listObjects(connection, 'v1', 'Pod', namespace, { app: 'webapp' })) as Pod[];
const runningNames = async () => (await webappPods()).filter((pod) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp).map((pod) => pod.metadata.name).sort();
const watcherStatus = async () => (await stack.reconciler.statusStore.get('local', watcherKey))?.kindStatus as { lastConfigMapHash?: string; restarts?: number } | undefined;
const replicaSets = async () => (await listObjects(connection, 'apps/v1', 'ReplicaSet', namespace, { app: 'webapp' })) as (KubernetesManifest & { spec: { replicas?: number } })[];

/** waitForFreshPods waits until two Running pods, none of them in before, serve the Deployment. */
async function waitForFreshPods(before: string[]): Promise<string[]> {
  await expect.poll(async () => {
    const now = await runningNames();
    return now.length === 2 && now.every((name) => !before.includes(name));
  }, { timeout: 60_000 }).toBe(true);
  return runningNames();
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-cw-original-'));
  const sample = join(workDir, 'repo');
  await mkdir(sample, { recursive: true });
  await writeFile(join(sample, 'namespace.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await copyFile(join(seedDir, 'cr.yaml'), join(sample, 'cr.yaml'));
  await writeFile(join(sample, 'configmap.yaml'), configMap('Welcome to Kubernetes Patterns !'));
  await writeFile(join(sample, 'deployment.yaml'), deployment);
  // A long poll interval: what lands quickly came through the webhook or a watch.
  stack = await startLocalStack({ workDir: join(workDir, 'stack'), sampleDir: sample, log: createLogger('warn'), intervalMs: 600_000, webhookSecret: secret });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
  expect(stack.plane.controllers).toBe(true);
});
afterAll(async () => {
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('the original ConfigWatcher example on real controllers', () => {
  let pods: string[] = [];
  let hash = '';

  it('runs the Deployment: two pods from a ReplicaSet, Running on simulated nodes; kubectl get cw shows the mapping', async () => {
    await expect.poll(runningNames, { timeout: 90_000 }).toHaveLength(2);
    pods = await runningNames();
    await expect.poll(async () => (await watcherStatus())?.lastConfigMapHash ?? '', { timeout: 30_000 }).toMatch(/^[0-9a-f]{64}$/);
    hash = (await watcherStatus())?.lastConfigMapHash ?? '';
    expect((await watcherStatus())?.restarts).toBe(0);
    const table = await stack.plane.kubectl(['get', 'cw', '-n', namespace]);
    expect(table).toMatch(/NAME\s+CONFIGMAP/);
    expect(table).toMatch(/webapp-config-watcher\s+webapp-config/);
  });

  it('a ConfigMap change by git push deletes the pods; the ReplicaSet brings new ones with new names; status shows the new hash and one restart', async () => {
    await stack.repo.write('configmap.yaml', configMap('Greets from Git!'));
    await pushAndNotify('a new message');
    const fresh = await waitForFreshPods(pods);
    await expect.poll(async () => (await watcherStatus())?.restarts, { timeout: 30_000 }).toBe(1);
    const status = await watcherStatus();
    expect(status?.lastConfigMapHash).not.toBe(hash);
    const live = (await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'webapp-config' })) as { data?: Record<string, string> };
    expect(live.data?.message).toBe('Greets from Git!');
    expect(await stack.plane.kubectl(['get', 'cw', 'webapp-config-watcher', '-n', namespace, '-o', 'jsonpath={.status.restarts}'])).toBe('1');
    // Deleting pods keeps the ReplicaSet: the same one recreated them.
    expect(await replicaSets()).toHaveLength(1);
    pods = fresh;
    hash = status?.lastConfigMapHash ?? '';
  });

  it('a ConfigMap change by kubectl patch does the same', async () => {
    await stack.plane.kubectl(['patch', 'configmap', 'webapp-config', '-n', namespace, '--type=merge', '-p', '{"data":{"message":"Greets from your smooth operator!"}}']);
    pods = await waitForFreshPods(pods);
    await expect.poll(async () => (await watcherStatus())?.restarts, { timeout: 30_000 }).toBe(2);
    expect((await watcherStatus())?.lastConfigMapHash).not.toBe(hash);
  });

  it('with strategy RolloutRestart, a change rolls the Deployment: a new ReplicaSet whose pods replace the old ones', async () => {
    await stack.repo.write('cr.yaml', `apiVersion: k8spatterns.com/v1
kind: ConfigWatcher
metadata:
  name: webapp-config-watcher
  namespace: ${namespace}
spec:
  configMap: webapp-config
  strategy: RolloutRestart
  podSelector:
    matchLabels:
      app: webapp
`);
    await pushAndNotify('roll the Deployment instead of deleting pods');
    await expect.poll(async () => stack.plane.kubectl(['get', 'cw', 'webapp-config-watcher', '-n', namespace, '-o', 'jsonpath={.spec.strategy}']), { timeout: 30_000 }).toBe('RolloutRestart');
    const [before] = await replicaSets();
    await stack.repo.write('configmap.yaml', configMap('Rolled out'));
    await pushAndNotify('a message that rolls the Deployment');
    await expect.poll(async () => (await replicaSets()).length, { timeout: 60_000 }).toBe(2);
    const fresh = await waitForFreshPods(pods);
    const current = (await replicaSets()).find((set) => set.metadata.name !== before?.metadata.name);
    await expect.poll(async () => (await replicaSets()).find((set) => set.metadata.name === before?.metadata.name)?.spec.replicas, { timeout: 60_000 }).toBe(0);
    const owners = (await webappPods()).filter((pod) => fresh.includes(pod.metadata.name)).map((pod) => pod.metadata.ownerReferences?.[0]?.name);
    expect(owners).toEqual([current?.metadata.name, current?.metadata.name]);
    await expect.poll(async () => (await watcherStatus())?.restarts, { timeout: 30_000 }).toBe(3);
    const rolled = await stack.plane.kubectl(['rollout', 'status', 'deployment/webapp', '-n', namespace, '--timeout=60s']);
    expect(rolled).toMatch(/successfully rolled out/);
  });
});
