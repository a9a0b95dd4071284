// The dashboard in Debian's Chromium against the rig: real pipeline runs change status, the page follows live.
// The cluster is a full control plane: the WebApp's Deployment is rolled out by the real controllers
// and KWOK's pods, and the reconciler's tree watch records them for the page's resource tree.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { applyObject, ClusterConnection } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { Redis } from 'ioredis';
import { startTreeWatches } from '@tidemark/watches';
import type { PipelineHarness } from '../support/pipeline-harness';
import { startFullPlaneHarness, type FullPlaneHarness } from '../support/full-plane-harness';
import { operatorToken, seededStatus, stalledConditions, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { artifactsDir, openChromium, signIn, type Chromium } from './chromium';

const namespace = `dash-${randomUUID().slice(0, 8)}`;
const key = `tidemark.dev/WebApp/${namespace}/shop`;
const cell = `td[data-cell="shared|${key}"]`;
const detailPath = `/objects/shared/tidemark.dev/WebApp/${namespace}/shop`;
const driftyKey = `apps/Deployment/${namespace}/drifty`;
const driftyPath = `/objects/shared/apps/Deployment/${namespace}/drifty`;
// A plain Deployment whose drift is reported, not healed, so the diff stays for the page to show.
const drifty = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: drifty\n  namespace: ${namespace}\n  annotations: {tidemark.dev/drift: report}\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: drifty}\n  template:\n    metadata:\n      labels: {app: drifty}\n    spec:\n      containers:\n        - name: app\n          image: nginx:1.27\n`;
let full: FullPlaneHarness;
let harness: PipelineHarness;
let trees: { stop(): Promise<void> } | undefined;
let treeRedis: Redis | undefined;
let fixture: DashboardFixture;
let browser: Chromium;
let base: string;

const webApp = (image: string) => `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: ${image}\n  replicas: 2\n`;

/** reconcileUntilReady runs the pipeline on the WebApp until the controllers have rolled its Deployment out and it is Ready. */
async function reconcileUntilReady(): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    await harness.reconcileKey(key, 'resync');
    const ready = findCondition((await harness.statusStore.get('shared', key))?.conditions, 'Ready');
    if (ready?.status === 'True') return;
    if (Date.now() > deadline) throw new Error(`the WebApp was not Ready within 90 s: ${ready?.message ?? 'no Ready condition'}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** podsInTree lists the Pod boxes of the open page's resource tree as `<name> <health>`. */
async function podsInTree(): Promise<string[]> {
  return browser.page.locator('#tree-svg a.tree-node[data-kind="Pod"]').evaluateAll((nodes) =>
    nodes.map((node) => `${node.querySelector('.tree-name')?.textContent ?? ''} ${node.getAttribute('data-health') ?? ''}`));
}

/**
 * waitForCellState waits for the live page to show a state. How fast that happens is a figure for
 * bench/dashboard.bench.ts, not a bound here: the test asserts that it happens without a reload.
 */
async function waitForCellState(state: string): Promise<void> {
  await browser.page.waitForSelector(`${cell}[data-state="${state}"]`, { timeout: 15_000 });
}

/** dashboardCount waits until the dashboard's objects API counts `total` rows for a query (writes arrive by pub/sub). */
async function dashboardCount(query: string, total: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fixture.app.inject({ url: `/api/objects?${query}`, headers: { authorization: `Bearer ${viewerToken}` } });
    if (response.json<{ total: number }>().total === total) return;
    if (Date.now() > deadline) throw new Error(`the dashboard did not show ${total} objects for ${query} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  full = await startFullPlaneHarness('dashboard', inject('redisUrl'), namespace);
  harness = full.harness;
  treeRedis = new Redis(inject('redisUrl'));
  trees = startTreeWatches({ clusters: new Map([['shared', harness.connection]]), statusStore: harness.statusStore, redis: treeRedis, flushMs: 100 });
  fixture = await startDashboardFixture(inject('redisUrl'), { store: harness.statusStore, clusters: ['shared'] });
  base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openChromium();
  await harness.repo.write('shop.yaml', webApp('nginx:1.27'));
  await harness.repo.write('drifty.yaml', drifty);
  await harness.pushAndReconcile('add shop and drifty');
  await reconcileUntilReady();
  // The dashboard learns of writes through pub/sub: wait until it has the object before any page loads.
  await dashboardCount(`namespace=${namespace}`, 2);
});
afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
  await trees?.stop();
  treeRedis?.disconnect();
  await full?.stop();
});

describe('dashboard in Chromium', () => {
  it('follows a Git push live: the WebApp goes Ready → Reconciling → Ready on the objects page without a reload', async () => {
    const { page } = browser;
    await signIn(page, base, operatorToken, `/objects?namespace=${namespace}`);
    await page.waitForSelector(`${cell}[data-state="Ready"]`);
    await page.waitForSelector('#live-status.on');
    await page.evaluate('window.tidemarkNoReload = "kept"');

    await harness.repo.write('shop.yaml', webApp('nginx:1.28'));
    const { results } = await harness.pushAndReconcile('shop to nginx 1.28');
    expect(results.get(key)).toEqual({ kind: 'requeue', afterMs: 5_000 });
    await waitForCellState('Reconciling');
    expect(await page.locator(`${cell} .gen`).textContent()).toMatch(/^g\d+\/o\d+$/);
    await page.screenshot({ path: join(artifactsDir, 'objects-reconciling.png'), fullPage: true });

    await reconcileUntilReady();
    await waitForCellState('Ready');
    expect(await page.evaluate('window.tidemarkNoReload')).toBe('kept');
    await page.screenshot({ path: join(artifactsDir, 'objects.png'), fullPage: true });
  });

  it('shows the object detail: conditions, generations, revision and path, inventory and history', async () => {
    const { page } = browser;
    await page.goto(`${base}${detailPath}`);
    await expect.poll(() => page.locator('#conditions tr[data-condition="Ready"] td').nth(1).textContent()).toBe('True');
    const status = await harness.statusStore.get('shared', key);
    expect(await page.locator('#facts').textContent()).toContain(status!.lastAppliedRevision!.slice(0, 10));
    expect(await page.locator('#facts').textContent()).toContain('shop.yaml');
    expect(await page.locator('#generation').textContent()).toContain(`generation ${status!.generation} / observedGeneration ${status!.observedGeneration}`);
    expect(await page.locator('#inventory tr').count()).toBe(status!.inventory.length + 1);
    expect(await page.locator('#inventory').textContent()).toContain('Deployment');
    expect(await page.locator('#history tr').count()).toBeGreaterThan(1);
    // The resource tree the pipeline recorded: the WebApp, and what it applied, each Ready by its health rule,
    // with the ReplicaSets and Pods the controllers made under the Deployment (from the tree watch).
    const treeBoxes = () => page.locator('#tree-svg a.tree-node').evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute('data-kind')} ${node.getAttribute('data-health')}`));
    // The rollout from nginx 1.27 to 1.28 may still be taking its old Pod away: the open page follows.
    await expect.poll(async () => (await treeBoxes()).filter((box) => box.startsWith('Pod ')), { timeout: 30_000 }).toEqual(['Pod Ready', 'Pod Ready']);
    const boxes = await treeBoxes();
    expect(boxes[0]).toBe('WebApp Ready');
    expect(boxes).toEqual(expect.arrayContaining(['Deployment Ready', 'Service Ready', 'ServiceAccount Ready', 'ReplicaSet Ready']));
    expect(boxes.filter((box) => !box.startsWith('Pod ') && !box.startsWith('ReplicaSet '))).toHaveLength(status!.resources!.length + 1);
    await page.screenshot({ path: join(artifactsDir, 'object-tree.png'), fullPage: true });
  });

  it('shows the field diff of drift made by hand: the pipeline reports it (report policy) and the page follows without a reload', async () => {
    const { page } = browser;
    await page.goto(`${base}${driftyPath}`);
    await page.waitForSelector('#drift-none');
    await page.evaluate('window.tidemarkNoReload = "kept"');
    // A person scales the Deployment by hand, with their own field manager.
    const person = ClusterConnection.connect({ cluster: 'shared', kubeconfig: full.plane.kubeconfig, fieldManager: 'kubectl-scale' });
    await applyObject(person, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'drifty', namespace }, spec: { replicas: 7 } }, { force: true });
    person.close();
    await harness.reconcileKey(driftyKey, 'drift');
    // Side by side: Git's YAML on the left, the cluster's on the right, the changed line marked, its manager named.
    const line = page.locator('#drift figure.diff tr.changed[data-path="/spec/replicas"]');
    await line.waitFor({ timeout: 5_000 });
    expect(await page.locator('#drift figure.diff').getAttribute('data-object')).toBe(`Deployment ${namespace}/drifty`);
    expect(await line.locator('code.desired').textContent()).toBe('  replicas: 2');
    expect(await line.locator('code.live').textContent()).toBe('  replicas: 7');
    expect(await line.locator('td.manager').textContent()).toBe('kubectl-scale');
    expect(await line.getAttribute('title')).toContain('written by kubectl-scale');
    // The same drift as a table of fields, for copying.
    const row = page.locator('#drift-fields tr[data-path="/spec/replicas"]');
    expect(await row.locator('pre.desired').textContent()).toBe('2');
    expect(await row.locator('pre.live').textContent()).toBe('7');
    expect(await row.locator('td.object').textContent()).toBe(`Deployment ${namespace}/drifty`);
    expect(await page.locator('#conditions tr[data-condition="Drifted"] td').nth(1).textContent()).toBe('True');
    expect(await page.locator('#state').textContent()).toContain('Drifted');
    expect(await page.evaluate('window.tidemarkNoReload')).toBe('kept');
    await page.screenshot({ path: join(artifactsDir, 'object-drift.png'), fullPage: true });
  });

  it('draws a Pod the controllers add into the open resource tree, without a reload and without a reconcile', async () => {
    const { page } = browser;
    await page.goto(`${base}${driftyPath}`);
    await page.waitForSelector('#live-status.on');
    await page.evaluate('window.tidemarkNoReload = "kept"');
    // The drift test left drifty at 7 replicas: the controllers roll them out and the open tree follows.
    await expect.poll(async () => (await podsInTree()).filter((pod) => pod.endsWith(' Ready')).length, { timeout: 60_000 }).toBe(7);
    const before = await podsInTree();
    // Scaled by hand: no reconcile runs and no status record is written; only the tree watch sees the new Pod.
    await full.plane.kubectl(['scale', 'deployment', 'drifty', '-n', namespace, '--replicas=8']);
    await expect.poll(async () => (await podsInTree()).filter((pod) => pod.endsWith(' Ready')).length, { timeout: 60_000 }).toBe(8);
    const added = (await podsInTree()).filter((name) => !before.includes(name));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^drifty-[a-z0-9]+-[a-z0-9]+ Ready$/);
    expect(await page.evaluate('window.tidemarkNoReload')).toBe('kept');
  });

  it('lets an operator suspend, resume and reconcile now from the page', async () => {
    const { page } = browser;
    await page.goto(`${base}${detailPath}`);
    await Promise.all([page.waitForURL(/notice=suspend/), page.click('button[data-action="suspend"]')]);
    expect(await page.locator('#notice').textContent()).toContain('Suspended');
    expect((await harness.statusStore.get('shared', key))?.suspended).toBe(true);
    expect(await page.locator('#state').textContent()).toContain('Suspended');
    await Promise.all([page.waitForURL(/notice=resume/), page.click('button[data-action="resume"]')]);
    expect((await harness.statusStore.get('shared', key))?.suspended).toBeUndefined();
    await Promise.all([page.waitForURL(/notice=reconcile/), page.click('button[data-action="reconcile"]')]);
    expect(await page.locator('#notice').textContent()).toBe('A reconcile is queued.');
    const figures = await fixture.queues.figures();
    expect(figures.find((entry) => entry.cluster === 'shared')?.depth.waiting).toBe(1);
  });

  it('keeps screenshots of the overview, clusters and queue pages', async () => {
    const { page } = browser;
    for (const [path, name] of [['/', 'overview'], ['/clusters', 'clusters'], ['/queue', 'queue']] as const) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector('main h1');
      await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
    }
    await page.goto(`${base}/`);
    expect(await page.locator('[data-count="total"]').textContent()).toBe(String((await harness.statusStore.list('shared')).length));
  });

  it('shows one column per cluster in the matrix, with the state of each cluster', async () => {
    const { page } = browser;
    const shop = (await harness.statusStore.get('shared', key))!;
    const copies = [
      { ...shop, cluster: 'edge', drift: [{ path: '/spec/replicas', desired: 2, live: 4, manager: 'kubectl-scale', detectedAt: new Date().toISOString() }] },
      { ...shop, cluster: 'east', conditions: stalledConditions, observedGeneration: (shop.generation ?? 1) - 1, drift: [] },
    ];
    await Promise.all(copies.map((copy) => harness.statusStore.put(copy)));
    // New clusters are new columns, which only a page load adds: wait until the dashboard has the records.
    await dashboardCount('cluster=east', 1);
    await page.goto(`${base}/objects?namespace=${namespace}`);
    await page.waitForSelector(`td[data-cell="east|${key}"][data-state="Stalled"]`);
    expect(await page.locator('#matrix thead th').allTextContents()).toEqual(['Kind', 'Namespace', 'Name', 'Path', 'east', 'edge', 'shared']);
    expect(await page.locator(`td[data-cell="edge|${key}"]`).textContent()).toContain('Drifted');
    expect(await page.locator(`td[data-cell="east|${key}"] .gen.behind`).count()).toBe(1);
    await page.screenshot({ path: join(artifactsDir, 'objects-clusters.png'), fullPage: true });
    await Promise.all(copies.map((copy) => harness.statusStore.delete(copy.cluster, key)));
    await page.waitForSelector(`td[data-cell="east|${key}"].empty`);
  });

  it('updates the overview counts and inserts new objects into an open list without a reload', async () => {
    const { page } = browser;
    await page.goto(`${base}/`);
    await page.waitForSelector('#live-status.on');
    await page.evaluate('window.tidemarkNoReload = "kept"');
    const stalledBefore = Number(await page.locator('[data-count="Stalled"]').textContent());
    const extra = seededStatus('shared', 'ConfigMap', namespace, 'late-arrival', { conditions: stalledConditions });
    await harness.statusStore.put(extra);
    await expect.poll(() => page.locator('[data-count="Stalled"]').textContent(), { timeout: 3_000 }).toBe(String(stalledBefore + 1));
    expect(await page.evaluate('window.tidemarkNoReload')).toBe('kept');

    await page.goto(`${base}/objects?namespace=${namespace}`);
    await page.waitForSelector('#live-status.on');
    expect(await page.locator('#live-notice').isVisible()).toBe(false);
    await page.evaluate('window.tidemarkNoReload = "kept"');
    await harness.statusStore.put({ ...extra, objectKey: `core/ConfigMap/${namespace}/later-still`, name: 'later-still' });
    // The new object is inserted where it sorts, in the open list, and the notice says so.
    await page.locator(`#matrix tr[data-object="core/ConfigMap/${namespace}/later-still"]`).waitFor({ timeout: 5_000 });
    expect(await page.locator('#live-notice').textContent()).toContain('1 new object arrived');
    expect(await page.evaluate('window.tidemarkNoReload')).toBe('kept');
    await harness.statusStore.delete('shared', extra.objectKey);
    await harness.statusStore.delete('shared', `core/ConfigMap/${namespace}/later-still`);
  });

  it('does not let a viewer act: no buttons, and a forged form post is refused', async () => {
    const { page } = browser;
    await page.goto(`${base}/`);
    await Promise.all([page.waitForURL(/\/login/), page.click('header button.link')]);
    await signIn(page, base, viewerToken, detailPath);
    expect(await page.locator('#actions-denied').textContent()).toContain('operator role');
    expect(await page.locator('button[data-action]').count()).toBe(0);
    const status = await page.evaluate(`(async () => {
      const csrf = (await (await fetch('/api/session')).json()).csrf;
      const response = await fetch('${detailPath}/suspend', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + encodeURIComponent(csrf) });
      return response.status;
    })()`);
    expect(status).toBe(403);
    expect((await harness.statusStore.get('shared', key))?.suspended).toBeUndefined();
    await page.screenshot({ path: join(artifactsDir, 'object-viewer.png'), fullPage: true });
  });
});
