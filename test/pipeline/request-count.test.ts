// How many requests one WebApp costs the API server, counted as the real server answered them:
// first creation applies each object once (the CR's creation is its validation: no dry-run),
// says what it did in one Event and writes status once; an unchanged resync writes
// nothing, says nothing and dry-runs nothing (each object's last apply left it at the version it
// still has), and reads nothing either: the cluster's watch cache holds the CR and what it renders
// at the versions the last run left. A hand edit moves the resourceVersion; the watch wakes the
// object and that run reads live, dry-runs and heals it. The watches run on a connection of their
// own, so only the pipeline's requests are counted.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getObject } from '@tidemark/cluster';
import { findCondition, TerminalError } from '@tidemark/contracts';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `requests-${randomUUID().slice(0, 8)}`;
const key = `tidemark.dev/WebApp/${namespace}/shop`;
let harness: PipelineHarness;
let counting = false;
const requests: { method: string; path: string; status: number; apply: boolean; dryRun: boolean }[] = [];

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), {
    onResponse: (event) => { if (counting) requests.push(event); },
    cache: true,
  });
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.pushAndReconcile('a namespace');
});
afterAll(async () => {
  await harness?.stop();
});

/** counted runs `work` and returns the requests it sent, by what they were. */
async function counted(work: () => Promise<unknown>): Promise<{ events: number; statusWrites: number; crDryRuns: number; dryRuns: number; writes: number; gets: number; objectGets: number; all: number }> {
  requests.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  const isCr = (path: string) => path.includes('/webapps/');
  return {
    events: requests.filter((request) => request.method === 'POST' && request.path.endsWith('/events')).length,
    statusWrites: requests.filter((request) => request.apply && !request.dryRun && request.path.endsWith('/status')).length,
    crDryRuns: requests.filter((request) => request.dryRun && isCr(request.path)).length,
    dryRuns: requests.filter((request) => request.dryRun).length,
    writes: requests.filter((request) => request.method !== 'GET' && !request.dryRun).length,
    gets: requests.filter((request) => request.method === 'GET').length,
    // GETs of the objects themselves (not of a CRD's schema or discovery).
    objectGets: requests.filter((request) => request.method === 'GET' && request.path.includes(`/namespaces/${namespace}/`)).length,
    all: requests.length,
  };
}

describe('requests per WebApp', () => {
  it('first creation: one apply per object, no dry-run (the CR\'s creation validates it), one aggregated Event, one status write', async () => {
    await harness.repo.write('shop.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  replicas: 1\n`);
    const created = await counted(() => harness.pushAndReconcile('add shop'));
    expect(created.events).toBe(1);
    expect(created.statusWrites).toBe(1);
    expect(created.crDryRuns).toBe(0);
    expect(created.dryRuns).toBe(0);
    const record = await harness.statusStore.get('shared', key);
    expect(created.writes).toBe(1 + record!.inventory.length + 1 + 1);
    const events = await harness.connection.client.request<{ items: { reason: string; message: string }[] }>({
      method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, what: 'list events',
    });
    const about = events.items.filter((event) => event.message.includes(`WebApp ${namespace}/shop`) || event.message.includes(`${namespace}/shop created`));
    expect(about).toHaveLength(1);
    expect(about[0]!.message.split('\n').length).toBeGreaterThan(1);
  });

  it('an unchanged resync writes nothing, records no Event, dry-runs nothing and reads nothing: the watch cache answers', async () => {
    // The first resync after creation still writes status once: its message now says "unchanged".
    await harness.reconcileKey(key, 'resync');
    await harness.cacheCaughtUp(key);
    const resync = await counted(() => harness.reconcileKey(key, 'resync'));
    expect(resync.events).toBe(0);
    expect(resync.statusWrites).toBe(0);
    expect(resync.crDryRuns).toBe(0);
    expect(resync.dryRuns).toBe(0);
    expect(resync.writes).toBe(0);
    expect(resync.objectGets).toBe(0);
    expect(resync.all).toBe(resync.gets);
  });

  it('without the cache, the same resync reads the CR and each object it renders once', async () => {
    const cacheFor = harness.deps.cacheFor;
    harness.deps.cacheFor = undefined;
    try {
      const resync = await counted(() => harness.reconcileKey(key, 'resync'));
      const record = await harness.statusStore.get('shared', key);
      expect(resync.objectGets).toBe(1 + record!.inventory.length);
      expect(resync.all).toBe(resync.gets);
    } finally {
      harness.deps.cacheFor = cacheFor;
    }
  });

  it('first creation next to a watched WebApp reads nothing: the synced cache knows the objects do not exist', async () => {
    await harness.repo.write('cart.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: cart\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  replicas: 1\n`);
    await harness.watches!.ready();
    const created = await counted(() => harness.pushAndReconcile('add cart'));
    expect(created.objectGets).toBe(0);
    const record = await harness.statusStore.get('shared', `tidemark.dev/WebApp/${namespace}/cart`);
    // One apply per object (the CR and what it renders), its status, one Event; nothing else.
    expect(created.dryRuns).toBe(0);
    expect(created.writes).toBe(1 + record!.inventory.length + 1 + 1);
    expect(created.all).toBe(created.writes + created.gets);
  });

  it('a new WebApp the API server refuses (a CEL rule): its creation is the one request, nothing it renders is written', async () => {
    await harness.repo.write('broken.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: broken\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  features:\n    autoscaling:\n      enabled: true\n      minReplicas: 5\n      maxReplicas: 2\n`);
    await harness.watches!.ready();
    let results: Map<string, unknown> | undefined;
    const refused = await counted(async () => { ({ results } = await harness.pushAndReconcile('add broken')); });
    const brokenKey = `tidemark.dev/WebApp/${namespace}/broken`;
    expect(results?.get(brokenKey)).toBeInstanceOf(TerminalError);
    expect((results?.get(brokenKey) as Error).message).toMatch(new RegExp(`broken\\.yaml: WebApp ${namespace}/broken is invalid: .*maxReplicas must be at least minReplicas`));
    const record = await harness.statusStore.get('shared', brokenKey);
    expect(findCondition(record?.conditions, 'Stalled')).toMatchObject({ status: 'True', reason: 'ValidationFailed' });
    // The only write is the CR's own apply, refused: no dry-run before it, nothing after it.
    const sent = requests.filter((request) => request.method !== 'GET');
    expect(sent).toEqual([expect.objectContaining({ method: 'PATCH', path: `/apis/tidemark.dev/v1alpha1/namespaces/${namespace}/webapps/broken`, status: 422, apply: true, dryRun: false })]);
    expect(refused.all).toBe(1 + refused.gets);
    for (const [apiVersion, kind] of [['tidemark.dev/v1alpha1', 'WebApp'], ['apps/v1', 'Deployment'], ['v1', 'Service'], ['v1', 'ServiceAccount']] as const) {
      expect(await getObject(harness.connection, { apiVersion, kind, namespace, name: 'broken' })).toBeUndefined();
    }
  });

  it('a hand edit moves the resourceVersion: the watch wakes the object, and that run dry-runs it and heals it', async () => {
    harness.wakes.length = 0;
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/shop`;
    await harness.connection.asManager('kubectl-edit').client.request({
      method: 'PATCH', path, query: { fieldManager: 'kubectl-edit', force: 'true' }, contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop', namespace }, spec: { replicas: 4 } }, what: 'edit by hand',
    });
    // The watch sees an edit Tidemark did not write and wakes the object; that run reads live.
    await harness.waitForWake(key);
    const healed = await counted(() => harness.reconcileKey(key, 'drift'));
    expect(healed.dryRuns).toBe(1);
    expect(requests.some((request) => request.dryRun && request.path === path)).toBe(true);
    const deployment = await harness.connection.client.request<{ spec: { replicas: number } }>({ method: 'GET', path, what: 'read the deployment' });
    expect(deployment.spec.replicas).toBe(1);
    const record = await harness.statusStore.get('shared', key);
    expect(record?.conditions.find((condition) => condition.type === 'Drifted')?.message).toMatch(/Healed: .*Deployment .*\/spec\/replicas/);
    // Healed, it is skipped again, from the cache.
    await harness.cacheCaughtUp(key);
    const after = await counted(() => harness.reconcileKey(key, 'resync'));
    expect(after.dryRuns).toBe(0);
    expect(after.objectGets).toBe(0);
  });

  it('a plain manifest: an unchanged resync reads it once and sends nothing else', async () => {
    await harness.repo.write('settings.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  mode: calm\n`);
    const created = await counted(() => harness.pushAndReconcile('add settings'));
    expect(created.dryRuns).toBe(0);
    const plainKey = `core/ConfigMap/${namespace}/settings`;
    await harness.cacheCaughtUp(plainKey);
    const resync = await counted(() => harness.reconcileKey(plainKey, 'resync'));
    expect(resync).toMatchObject({ objectGets: 0, all: resync.gets });
  });

  it('a push that changes what a WebApp renders: the changed object is applied at once, no dry-run but the CR\'s validation', async () => {
    await harness.cacheCaughtUp(key);
    await harness.repo.write('shop.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: nginx:1.28\n  replicas: 1\n`);
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/shop`;
    const pushed = await counted(() => harness.pushAndReconcile('shop on nginx 1.28'));
    // The Deployment is live at the version its last apply left: its dry-run could only say what its apply says.
    expect(pushed.dryRuns).toBe(1);
    expect(pushed.crDryRuns).toBe(1);
    expect(requests.filter((request) => request.path === path && request.method === 'PATCH')).toEqual([expect.objectContaining({ apply: true, dryRun: false, status: 200 })]);
    // The CR, the Deployment, the status write and one Event; what did not change is not written.
    expect(pushed.writes).toBe(4);
    const deployment = await harness.connection.client.request<{ spec: { template: { spec: { containers: { image: string }[] } } } }>({ method: 'GET', path, what: 'read the deployment' });
    expect(deployment.spec.template.spec.containers[0]!.image).toBe('nginx:1.28');
    const record = await harness.statusStore.get('shared', key);
    expect(findCondition(record?.conditions, 'Ready')?.message ?? '').not.toMatch(/unchanged/i);
  });
});
