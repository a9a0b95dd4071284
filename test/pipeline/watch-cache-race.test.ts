// The watch cache against a real API server when it is behind: what a cache looks like while a
// watch event is still on its way is a store listed a moment ago, so each test takes such a
// snapshot, changes the cluster behind its back, and runs the pipeline on it. A run on a stale
// cache may not see the change, but it prunes nothing it should not, reads live what it last wrote
// when the cache is older than that write, and the watch event that follows wakes the object and
// its run converges.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ObjectCache, resourcePath } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `cache-race-${randomUUID().slice(0, 8)}`;
const key = `tidemark.dev/WebApp/${namespace}/shop`;
const deploymentPath = `/apis/apps/v1/namespaces/${namespace}/deployments/shop`;
let harness: PipelineHarness;
const requests: { method: string; path: string; dryRun: boolean }[] = [];

const webApp = (replicas: number) => `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  replicas: ${replicas}\n`;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { cache: true, onResponse: (event) => requests.push(event) });
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('shop.yaml', webApp(1));
  await harness.pushAndReconcile('a namespace and shop');
  await harness.reconcileKey(key, 'resync');
  await harness.cacheCaughtUp(key);
});
afterAll(async () => {
  await harness?.stop();
});

/**
 * snapshot lists the WebApp and every kind it renders in the namespace into a new cache, as a
 * watch has them right after its list: a cache that no later event will reach.
 */
async function snapshot(): Promise<ObjectCache> {
  const record = (await harness.statusStore.get(harness.cluster, key))!;
  const kinds = new Map([record, ...record.inventory].map((object) => [`${object.apiVersion}|${object.kind}`, object]));
  const cache = new ObjectCache();
  for (const { apiVersion, kind } of kinds.values()) {
    const resource = await harness.connection.discovery.resourceFor(apiVersion, kind);
    const list = await harness.connection.client.request<{ metadata: { resourceVersion: string }; items: KubernetesManifest[] }>({
      method: 'GET', path: resourcePath(resource, namespace), what: `list ${kind} for a snapshot`,
    });
    const feed = cache.watchHandlers(apiVersion, kind);
    feed.onProgress({ type: 'listing' });
    for (const item of list.items) feed.onEvent('ADDED', item, true);
    feed.onProgress({ type: 'listed', resourceVersion: list.metadata.resourceVersion });
    feed.onProgress({ type: 'streaming' });
  }
  return cache;
}

/** withCache runs `work` with the pipeline reading from `cache`, counting its requests. */
async function withCache<T>(cache: ObjectCache, work: () => Promise<T>): Promise<T> {
  const cacheFor = harness.deps.cacheFor;
  harness.deps.cacheFor = () => cache;
  requests.length = 0;
  try {
    return await work();
  } finally {
    harness.deps.cacheFor = cacheFor;
  }
}

async function liveDeployment(): Promise<KubernetesManifest | undefined> {
  return harness.connection.client.request<KubernetesManifest>({ method: 'GET', path: deploymentPath, what: 'read the deployment' }).catch(() => undefined);
}

describe('the watch cache when it is behind the API server', () => {
  it('an object deleted behind its back: the run on the stale cache prunes nothing, and the watch event wakes a run that recreates it', async () => {
    const stale = await snapshot();
    const inventoryBefore = (await harness.statusStore.get(harness.cluster, key))!.inventory;
    harness.wakes.length = 0;
    await harness.connection.asManager('kubectl-delete').client.request({ method: 'DELETE', path: deploymentPath, what: 'delete by hand' });
    expect(await liveDeployment()).toBeUndefined();
    await withCache(stale, () => harness.reconcileKey(key, 'resync'));
    // Nothing was deleted by that run, and the record still owns everything it owned.
    expect(requests.filter((request) => request.method === 'DELETE')).toEqual([]);
    expect((await harness.statusStore.get(harness.cluster, key))!.inventory).toEqual(inventoryBefore);
    // The watch saw the deletion and woke the object; that run reads live and recreates it.
    await harness.waitForWake(key);
    await harness.reconcileKey(key, 'drift');
    const recreated = await liveDeployment();
    expect((recreated?.spec as { replicas?: number } | undefined)?.replicas).toBe(1);
    expect((await harness.statusStore.get(harness.cluster, key))!.inventory).toEqual(inventoryBefore);
  });

  it('a cache older than the last write is not believed: the run reads those objects live, and neither dry-runs nor writes', async () => {
    await harness.cacheCaughtUp(key);
    const stale = await snapshot();
    // Git changes; the run writes the Deployment (and the CR) at versions the snapshot never saw.
    await harness.repo.write('shop.yaml', webApp(2));
    await harness.pushAndReconcile('two replicas');
    await harness.reconcileKey(key, 'resync');
    await withCache(stale, () => harness.reconcileKey(key, 'resync'));
    const gets = requests.filter((request) => request.method === 'GET').map((request) => request.path);
    expect(gets).toContain(deploymentPath);
    expect(gets).toContain(`/apis/tidemark.dev/v1alpha1/namespaces/${namespace}/webapps/shop`);
    expect(requests.filter((request) => request.dryRun)).toEqual([]);
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
    expect(((await liveDeployment())?.spec as { replicas?: number }).replicas).toBe(2);
  });

  it('the same run on a cache that has caught up reads nothing', async () => {
    await harness.cacheCaughtUp(key);
    await withCache(harness.watches!.cacheFor(harness.cluster)!, () => harness.reconcileKey(key, 'resync'));
    expect(requests.filter((request) => request.path.includes(`/namespaces/${namespace}/`))).toEqual([]);
  });
});
