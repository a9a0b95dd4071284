// The original ConfigWatcher scenario on the rig, with the seed CR from shared/ pushed through Git.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { applyObject, listObjects } from '@tidemark/cluster';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { installBuiltinCrds } from '@tidemark/conversion';

const seedDir = fileURLToPath(new URL('../../examples/seed-configwatcher/', import.meta.url));
const namespace = `operator-test-${randomUUID().slice(0, 8)}`;
const key = `k8spatterns.com/ConfigWatcher/${namespace}/webapp-config-watcher`;
let harness: PipelineHarness;

async function createPods(count: number): Promise<string[]> {
  const names: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const name = `webapp-${randomUUID().slice(0, 6)}`;
    await applyObject(harness.connection, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { app: 'webapp' } },
      spec: { containers: [{ name: 'app', image: 'k8spatterns/mini-http-server' }] },
    });
    names.push(name);
  }
  return names;
}

const podNames = async () => (await listObjects(harness.connection, 'v1', 'Pod', namespace, { app: 'webapp' })).map((pod) => pod.metadata.name).sort();
const cw = (path: string) => kubectl(inject('kubeconfigPath'), ['get', 'cw', 'webapp-config-watcher', '-n', namespace, '-o', `jsonpath={${path}}`]);

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  await installBuiltinCrds(harness.connection, harness.kinds);
  const seedCr = (await readFile(`${seedDir}/cr.yaml`, 'utf8')).replace('namespace: operator-test', `namespace: ${namespace}`);
  await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('watcher.yaml', seedCr);
  await harness.repo.write('config.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: webapp-config\n  namespace: ${namespace}\ndata:\n  message: "Welcome to Kubernetes Patterns !"\n`);
});
afterAll(async () => harness?.stop());

describe('ConfigWatcher', () => {
  it('is listed by kubectl get cw with its ConfigMap column, and records the ConfigMap hash without restarting on first sight', async () => {
    await harness.pushAndReconcile('add the seed ConfigWatcher');
    const pods = await createPods(2);
    await harness.reconcileKey(key, 'resync');
    expect(await podNames()).toEqual(pods.sort());
    const table = await kubectl(inject('kubeconfigPath'), ['get', 'cw', '-n', namespace]);
    expect(table).toMatch(/NAME\s+CONFIGMAP/);
    expect(table).toMatch(/webapp-config-watcher\s+webapp-config/);
    expect(await cw('.status.lastConfigMapHash')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('deletes the selected pods when the ConfigMap is changed by hand, and shows it in status', async () => {
    const before = await podNames();
    const hashBefore = await cw('.status.lastConfigMapHash');
    await kubectl(inject('kubeconfigPath'), ['patch', 'configmap', 'webapp-config', '-n', namespace, '--type=merge', '-p', '{"data":{"message":"Greets from your smooth operator!"}}']);
    await harness.reconcileKey(key, 'watch');
    const after = await podNames();
    expect(after.filter((name) => before.includes(name))).toEqual([]);
    expect(await cw('.status.restarts')).toBe('1');
    expect(await cw('.status.lastConfigMapHash')).not.toBe(hashBefore);
  });

  it('is level-triggered: replaying the job restarts nothing for the same change', async () => {
    const pods = await createPods(1);
    await harness.reconcileKey(key, 'watch');
    await harness.reconcileKey(key, 'resync');
    expect(await podNames()).toEqual(pods);
    expect(await cw('.status.restarts')).toBe('1');
  });

  it('restarts Deployments instead with strategy RolloutRestart', async () => {
    const labels = { app: 'webapp' };
    await applyObject(harness.connection, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'webapp', namespace },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'k8spatterns/mini-http-server' }] } } },
    });
    const seedCr = (await readFile(`${seedDir}/cr.yaml`, 'utf8')).replace('namespace: operator-test', `namespace: ${namespace}`);
    await harness.repo.write('watcher.yaml', `${seedCr.trimEnd()}\n  strategy: RolloutRestart\n`);
    await harness.pushAndReconcile('restart deployments instead');
    const pods = await podNames();
    await kubectl(inject('kubeconfigPath'), ['patch', 'configmap', 'webapp-config', '-n', namespace, '--type=merge', '-p', '{"data":{"message":"third"}}']);
    await harness.reconcileKey(key, 'watch');
    expect(await podNames()).toEqual(pods);
    const restartedAt = await kubectl(inject('kubeconfigPath'), ['get', 'deployment', 'webapp', '-n', namespace, '-o', 'jsonpath={.spec.template.metadata.annotations.tidemark\\.dev/restartedAt}']);
    expect(restartedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await cw('.status.restarts')).toBe('2');
  });
});
