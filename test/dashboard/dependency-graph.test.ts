// The dependency graph on an object's page, in Debian's Chromium: who waits on whom and why, from
// records as the pipeline writes them (dependencies, Ready conditions). Records come from Redis, so
// they are hostile input: a name made of markup must show as text.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Condition, DependencyEdge, ObjectStatus } from '@tidemark/contracts';
import { condition, readyConditions, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { openChromium, signIn, type Chromium } from './chromium';

let fixture: DashboardFixture;
let browser: Chromium;
let base: string;

const failing = (reason: string, message: string): Condition[] => [condition('Ready', 'False', reason, message), condition('Reconciling', 'False', reason, message), condition('Stalled', 'False', reason, 'Not stalled; it will be retried.')];
const edge = (objectKey: string, description: string, reason: DependencyEdge['reason'] = 'depends-on'): DependencyEdge => ({ objectKey, description, reason });
const hostile = 'evil"><img src=x onerror="window.__pwned=1">';

const postgres = seededStatus('shared', 'Deployment', 'db', 'postgres', {
  conditions: failing('HealthCheckFailed', 'Deployment db/postgres has 0 of 1 replicas available. Not Ready after 10m0s, past its health timeout of 10m0s.'),
  failure: { category: 'transient', code: 'HealthCheckFailed' },
});
const api = seededStatus('shared', 'ConfigMap', 'shop', 'api', {
  conditions: failing('DependencyFailed', 'waiting for Deployment db/postgres (tidemark.dev/depends-on) to be Ready: HealthCheckFailed.'),
  failure: { category: 'transient', code: 'DependencyFailed' },
  dependencies: { edges: [edge('core/Namespace/_/shop', 'Namespace shop', 'namespace'), edge(postgres.objectKey, 'Deployment db/postgres')], total: 2 },
});
const web = seededStatus('shared', 'WebApp', 'shop', 'web', {
  conditions: failing('DependencyNotReady', 'waiting for ConfigMap shop/api (tidemark.dev/depends-on) to be Ready.'),
  failure: { category: 'waiting', code: 'DependencyNotReady' },
  dependencies: { edges: [edge(api.objectKey, 'ConfigMap shop/api'), { ...edge(`core/ConfigMap/shop/${hostile}`, `ConfigMap shop/${hostile}`, 'sync-wave'), wave: -1 }], total: 7 },
});
const cycleA = seededStatus('shared', 'ConfigMap', 'loop', 'a', { dependencies: { edges: [edge('core/ConfigMap/loop/b', 'ConfigMap loop/b')], total: 1 }, conditions: failing('DependencyCycle', 'ConfigMap loop/a, ConfigMap loop/b depend on each other.') });
const cycleB = seededStatus('shared', 'ConfigMap', 'loop', 'b', { dependencies: { edges: [edge('core/ConfigMap/loop/a', 'ConfigMap loop/a')], total: 1 }, conditions: failing('DependencyCycle', 'ConfigMap loop/a, ConfigMap loop/b depend on each other.') });
const lonely = seededStatus('shared', 'ConfigMap', 'shop', 'lonely', { conditions: readyConditions });

const pageOf = (status: ObjectStatus) => `/objects/shared/${status.objectKey.split('/').map(encodeURIComponent).join('/')}`;

/** open loads an object's page, reloading until the status cache has every seeded record (writes arrive by pub/sub). */
async function open(status: ObjectStatus): Promise<void> {
  await expect.poll(async () => {
    const response = await fixture.app.inject({ url: '/api/objects?limit=50', headers: { authorization: `Bearer ${viewerToken}` } });
    return response.json<{ total: number }>().total;
  }, { timeout: 10_000, interval: 50 }).toBe(6);
  await browser.page.goto(`${base}${pageOf(status)}`);
}

const items = (selector: string) => browser.page.locator(selector).evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute('data-object') ?? ''} ${node.getAttribute('data-state') ?? ''}`));

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), { clusters: ['shared'] });
  for (const status of [postgres, api, web, cycleA, cycleB, lonely]) await fixture.store.record('shared', status.objectKey, status, { revision: 'a'.repeat(40), startedAt: new Date().toISOString(), durationMs: 5, result: 'failed' });
  base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openChromium();
  await signIn(browser.page, base, viewerToken);
});
afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
});

describe('dependency graph', () => {
  it('shows what an object waits on, their state and why, and who waits on it', async () => {
    await open(api);
    expect(await browser.page.textContent('#dependencies-waiting')).toContain('DependencyFailed: waiting for Deployment db/postgres');
    expect(await items('#waits-on > ul > li')).toEqual(['core/Namespace/_/shop none', `${postgres.objectKey} Failed`]);
    expect(await browser.page.textContent(`#waits-on li[data-object="${postgres.objectKey}"] .why`)).toContain('HealthCheckFailed: Deployment db/postgres has 0 of 1 replicas available');
    expect(await browser.page.textContent('#waits-on li[data-object="core/Namespace/_/shop"]')).toContain('no record');
    expect(await items('#waited-on-by > ul > li')).toEqual([`${web.objectKey} Waiting`]);
    await browser.page.click(`#waited-on-by li[data-object="${web.objectKey}"] > a`);
    await browser.page.waitForURL(`${base}${pageOf(web)}`);
  });

  it('walks the waits transitively, says how many edges are not shown, and shows a hostile name as text', async () => {
    await open(web);
    // A dependency's failure makes its dependent wait, not fail: the one verdict (verdictOf).
    expect((await items('#waits-on > ul > li'))[0]).toBe(`${api.objectKey} Waiting`);
    expect(await items(`#waits-on li[data-object="${api.objectKey}"] > ul > li`)).toEqual(['core/Namespace/_/shop none', `${postgres.objectKey} Failed`]);
    expect(await browser.page.textContent('#waits-on > ul > li[data-more]')).toBe('and 5 more');
    const wave = browser.page.locator('#waits-on > ul > li').nth(1);
    expect(await wave.textContent()).toContain(`ConfigMap shop/${hostile}`);
    expect(await wave.textContent()).toContain('(sync wave -1)');
    expect(await browser.page.locator('#dependencies img').count()).toBe(0);
    expect(await browser.page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('marks a cycle where it comes round, and says when there is nothing', async () => {
    await open(cycleA);
    expect(await items('#waits-on > ul > li')).toEqual(['core/ConfigMap/loop/b Failed']);
    expect(await browser.page.locator('#waits-on li[data-object="core/ConfigMap/loop/a"] [data-cycle]').count()).toBe(1);
    expect(await items('#waited-on-by > ul > li')).toEqual(['core/ConfigMap/loop/b Failed']);
    await open(lonely);
    expect(await browser.page.textContent('#dependencies-none')).toContain('waits on nothing and nothing waits on it');
  });
});
