// Flux's own install manifests (10 CRDs, the flux-system Namespace, RBAC, Deployments) and a
// custom resource of each of its CRDs, pushed in one commit to an empty API server of its own (the
// CRDs' Established condition is the API server's own; no other controller is needed to apply). Each Git object is its own job; the custom resources and the namespaced objects
// wait for their CRD and Namespace, saying so, and start the moment those are ready: woken by the
// CRD watch or the dependency's run, never by a retry backoff (their own recheck is set to ten
// minutes here, so only a wake-up can start them within the test).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { formatObjectKey, groupOf, type KubernetesManifest } from '@tidemark/contracts';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const fixture = (name: string) => new URL(`fixtures/flux/${name}`, import.meta.url);
let plane: ControlPlane;
let stack: OrderingStack;
let keys: string[];
let customResourceKeys: string[];

function keysOf(text: string): string[] {
  return parseAllDocuments(text).map((document) => document.toJS() as KubernetesManifest | null).filter((object): object is KubernetesManifest => object !== null)
    .map((object) => formatObjectKey({ group: groupOf(object.apiVersion), kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name }));
}

beforeAll(async () => {
  plane = await startControlPlane({ name: 'flux-install' });
  stack = await startOrderingStack({ kubeconfigPath: plane.kubeconfigPath, kubeconfig: plane.kubeconfig, redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000, cluster: 'flux' });
  const components = await readFile(fixture('gotk-components.yaml'), 'utf8');
  const customResources = await readFile(fixture('custom-resources.yaml'), 'utf8');
  customResourceKeys = keysOf(customResources);
  keys = [...keysOf(components), ...customResourceKeys];
  await stack.repo.write('flux-system/gotk-components.yaml', components);
  // Sorted before flux-system/, so their jobs are queued first and find no CRD served yet.
  await stack.repo.write('apps/custom-resources.yaml', customResources);
});
afterAll(async () => {
  await stack?.stop();
  await plane?.stop();
});

describe('CRDs and Namespaces before what needs them, across jobs', () => {
  it('applies the Flux install and a custom resource of each kind from one commit, waking the waiting objects without backoff', async () => {
    expect(keys).toHaveLength(41);
    const revision = await stack.repo.commitAndPush('Flux v2.3.0 and one custom resource of each kind');
    await expect.poll(async () => {
      const records = await Promise.all(keys.map((key) => stack.status(key)));
      return records.filter((record) => record?.lastAppliedRevision === revision).length;
    }, { timeout: 90_000, interval: 250 }).toBe(keys.length);

    const runs = (await Promise.all(keys.map((key) => stack.reconciler.statusStore.history(stack.cluster, key)))).flat();
    // Nothing failed on the way: waiting is not failing, and no retry backoff ran.
    expect(runs.filter((run) => run.result === 'failed' || run.result === 'stalled')).toEqual([]);
    expect((await stack.reconciler.queues.figures()).flatMap((cluster) => cluster.failures)).toEqual([]);
    // Whatever got there before its Namespace or CRD waited, and said for what.
    const waits = runs.filter((run) => run.result === 'waiting');
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) expect(wait.message).toMatch(/^waiting for (CRD [a-z]+\.[a-z.]+\.fluxcd\.io to be (Established|served)|Namespace flux-system \(its Namespace\) to be Ready: .+)\.$/);
    const repository = await stack.status('source.toolkit.fluxcd.io/GitRepository/flux-system/podinfo');
    expect(repository?.lastAppliedRevision).toBe(revision);
  });
});
