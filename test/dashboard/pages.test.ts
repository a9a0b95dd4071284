// The pages a new user reads: sources, clusters, side-by-side drift, resource trees, timelines, and the rough edges of first use.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appendClusterSample, writeClusterHealth } from '@tidemark/cluster-health';
import type { ReconcileRecord } from '@tidemark/contracts';
import { startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { commitTime, revision, seedPictures } from './picture-data';

let fixture: DashboardFixture;
const headers = { authorization: `Bearer ${viewerToken}` };

const get = async (url: string) => {
  const response = await fixture.app.inject({ url, headers });
  return { status: response.statusCode, body: response.body, json: <T>() => response.json<T>() };
};

/** settle waits until the dashboard's cache has a record written just before (it learns of writes by pub/sub). */
async function settle(query: string, total: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await get(`/api/objects?${query}`)).json<{ total: number }>().total !== total) {
    if (Date.now() > deadline) throw new Error(`the dashboard did not list ${total} objects for ${query}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  await seedPictures(fixture);
  await settle('pageSize=500', 6);
});
afterAll(async () => fixture?.stop());

describe('rough edges of first use', () => {
  it('counts the objects of a source on the overview (not the Git objects of the last fetch)', async () => {
    const overview = await get('/');
    expect(overview.body).toMatch(/<tr data-source="main-repo">.*<td class="num" data-objects>6<\/td>/s);
    const api = (await get('/api/overview')).json<{ sources: { name: string; objects: number; declaredObjects: number }[] }>();
    expect(api.sources).toEqual([expect.objectContaining({ name: 'main-repo', objects: 6, declaredObjects: 6 })]);
  });

  it('files an object whose Git file names no namespace under its real namespace, in the matrix and the filter', async () => {
    const inDefault = (await get('/api/objects?namespace=default')).json<{ rows: { objectKey: string; namespace: string }[] }>();
    expect(inDefault.rows).toEqual([expect.objectContaining({ objectKey: 'core/ConfigMap/_/carts', namespace: 'default' })]);
    const page = await get('/objects?namespace=default');
    expect(page.body).toMatch(/<tr data-object="core\/ConfigMap\/_\/carts"><td>ConfigMap<\/td><td>default<\/td>/);
    expect(page.body).toContain('<option value="default" selected>');
  });

  it('shows a dash with a reason, not "?", for a kind without generations', async () => {
    const page = await get('/objects/shared/core/ConfigMap/_/carts');
    expect(page.body).toMatch(/<dd id="generation"><span title="The API server keeps metadata.generation only for objects with a spec[^"]*">—/);
    expect(page.body).not.toMatch(/generation \?|g\?\/o\?/);
  });

  it('folds health re-checks that changed nothing into one history row with a count', async () => {
    const key = 'core/ConfigMap/shop/b';
    const run = (result: ReconcileRecord['result'], changed: number, message = 'Applied.'): ReconcileRecord => ({
      revision, startedAt: new Date().toISOString(), durationMs: 5, result, message, changes: { created: 0, configured: changed, unchanged: 4 - changed, deleted: 0 },
    });
    await fixture.store.appendHistory('shared', key, run('succeeded', 1));
    for (let index = 0; index < 3; index += 1) await fixture.store.appendHistory('shared', key, run('succeeded', 0));
    await fixture.store.appendHistory('shared', key, run('progressing', 0, 'Waiting for the Deployment.'));
    await fixture.store.appendHistory('shared', key, run('progressing', 0, 'Waiting for the Deployment.'));
    const history = await fixture.store.history('shared', key);
    expect(history.map((record) => [record.result, record.changes?.configured, record.repeats ?? 1])).toEqual([['progressing', 0, 2], ['succeeded', 0, 3], ['succeeded', 1, 1]]);
    const page = await get(`/objects/shared/${key}`);
    expect(page.body).toMatch(/×3, last/);
  });

  it('gives each cluster a page of its own, with latency and last check; the clusters page links to it', async () => {
    await writeClusterHealth(fixture.redis, fixture.store.keys, { cluster: 'edge', state: 'Available', since: new Date(Date.now() - 3_600_000).toISOString(), lastCheck: new Date().toISOString(), latencyMs: 37, queuePaused: false });
    const list = await get('/clusters');
    expect(list.body).toContain('<a href="/clusters/edge">edge</a>');
    expect(list.body).toMatch(/<tr data-cluster="edge">.*37 ms/s);
    const page = await get('/clusters/edge');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<dl class="facts" id="cluster-health">.*Available.*answered in 37 ms/s);
    expect(page.body).toContain('href="/objects?cluster=edge&amp;condition=Stalled"');
    expect((await get('/clusters/nowhere')).status).toBe(404);
    expect((await get('/api/clusters/edge')).json<{ row: { health: { latencyMs: number } } }>().row.health.latencyMs).toBe(37);
  });

  it('explains the queue\'s Delayed figure where it is shown', async () => {
    expect((await get('/queue')).body).toMatch(/<dt>Delayed<\/dt><dd>jobs planned for later, not stuck/);
    expect((await get('/')).body).toMatch(/<abbr title="Planned for later, not stuck[^"]*">Jobs delayed<\/abbr>/);
  });
});

describe('sources page', () => {
  it('lists each source with its ref, head commit and last poll, and links to its page', async () => {
    const page = await get('/sources');
    expect(page.body).toMatch(/<tr data-source="main-repo"><th scope="row"><a href="\/sources\/main-repo">main-repo<\/a><\/th><td>branch main<\/td><td><span class="commit">shop: two replicas<\/span> <span class="muted">by Ann Operator/);
  });

  it('shows one source: problems with file and line, render units and objects per cluster, and its commits with when they went live', async () => {
    const page = await get('/sources/main-repo');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<code>apps/broken.yaml:7</code>');
    expect(page.body).toMatch(/<tr data-cluster="shared">.*<a href="\/objects\?source=main-repo&amp;cluster=shared">6<\/a>/s);
    expect(page.body).toMatch(/<tr data-cluster="edge">.*>1<\/a><\/td>/s);
    expect(page.body).toMatch(/<tr data-revision="a{40}">.*<td data-cluster="shared"><time[^>]*>1m ago<\/time> <span class="muted">\(60\.0 s after the commit\)/s);
    expect(page.body).toContain('id="commit-to-live"');
    expect(page.body).toMatch(/<tr data-unit="apps\/overlays\/prod"><th scope="row"><code>apps\/overlays\/prod<\/code><\/th><td>kustomize<\/td><td class="num">2<\/td>\s*<td class="muted">—<\/td><td data-cluster="shared">2 ready<\/td>/);
    expect((await get('/sources/unknown')).status).toBe(404);
    expect((await get('/api/objects?source=main-repo&cluster=edge')).json<{ total: number }>().total).toBe(1);
    expect((await get('/api/objects?source=other')).json<{ total: number }>().total).toBe(0);
  });
});

describe('object pictures', () => {
  it('draws the resource tree as SVG: the WebApp, what it rendered, and the ReplicaSet and Pod under its Deployment', async () => {
    const page = await get('/objects/shared/tidemark.dev/WebApp/shop/storefront');
    const svg = /<svg id="tree-svg"[\s\S]*?<\/svg>/.exec(page.body)?.[0] ?? '';
    const nodes = [...svg.matchAll(/data-kind="(\w+)" data-health="(\w+)" data-sync="(\w+)"/g)].map((match) => match.slice(1).join(' '));
    expect(nodes).toEqual(['WebApp Ready Drifted', 'Deployment Progressing Synced', 'ReplicaSet Progressing Live', 'Pod Ready Live', 'Service Ready Synced', 'ConfigMap Ready Drifted']);
    expect(svg).toMatch(/class="tree-node health-ready drifted"[^>]*data-kind="ConfigMap"/);
    // Each box links to its row in the table that says the same in text.
    const link = /<a href="#(node-[\w-]+)"[^>]*data-kind="Pod"/.exec(svg)?.[1];
    expect(page.body).toMatch(new RegExp(`<tr id="${link}" class="tree-row" data-kind="Pod"><th scope="row">.*storefront-6d4b-x1</th>\\s*<td>ReplicaSet storefront-6d4b</td>`));
    const api = (await get('/api/objects/shared/tidemark.dev/WebApp/shop/storefront')).json<{ tree: { children: { kind: string; children: { kind: string }[] }[] } }>();
    expect(api.tree.children[0]).toMatchObject({ kind: 'Deployment', children: [{ kind: 'ReplicaSet', children: [{ kind: 'Pod' }] }] });
  });

  it('gives what a WebApp rendered rows of their own, opened under it from a one-line count in the matrix', async () => {
    // The matrix row says how many objects the WebApp rendered and how many need a look, and links to their rows.
    const matrix = await get('/objects?kind=WebApp');
    expect(matrix.body).toMatch(/<tr data-object="tidemark.dev\/WebApp\/shop\/storefront">.*<a class="rendered-toggle" href="\/objects\/rendered\?parent=tidemark.dev%2FWebApp%2Fshop%2Fstorefront" data-parent="tidemark.dev\/WebApp\/shop\/storefront">3 rendered objects<\/a> <span class="rendered-issues">\(1 not ready, 1 drifted\)<\/span>/s);
    expect(matrix.body).not.toContain('<tr class="rendered"');
    // Their rows, under the WebApp's own, each with its state per cluster: the page script inserts them into the matrix.
    const page = await get('/objects/rendered?parent=tidemark.dev%2FWebApp%2Fshop%2Fstorefront');
    expect(page.status).toBe(200);
    const rendered = [...page.body.matchAll(/<tr class="rendered" data-parent="tidemark.dev\/WebApp\/shop\/storefront"><td><span class="rendered-mark" aria-hidden="true">↳ <\/span>(\w+)<\/td>/g)].map((match) => match[1]);
    expect(rendered).toEqual(['Deployment', 'Service', 'ConfigMap']);
    expect(page.body).toMatch(/<tr class="rendered"[^>]*><td><span[^>]*>↳ <\/span>Deployment<\/td>(?:(?!<\/tr>).)*rendered by WebApp storefront<\/td>(?:(?!<\/tr>).)*data-state="Reconciling"/s);
    expect(page.body).toMatch(/<tr class="rendered"[^>]*><td><span[^>]*>↳ <\/span>ConfigMap<\/td>(?:(?!<\/tr>).)*state-drifted/s);
    expect((await get('/objects/rendered?parent=tidemark.dev%2FWebApp%2Fshop%2Fnone')).status).toBe(404);
    expect((await get('/objects/rendered')).status).toBe(400);
  });

  it('shows ConfigMap drift side by side with the values, the changed line marked and its manager', async () => {
    const page = await get('/objects/shared/tidemark.dev/WebApp/shop/storefront');
    expect(page.body).toMatch(/<figure class="diff" data-object="ConfigMap shop\/storefront-config">/);
    expect(page.body).toMatch(/<tr class="changed" data-path="\/data\/greeting" title="\/data\/greeting — live value written by kubectl-edit"><td class="del">.*<code class="desired"> {2}greeting: hello<\/code>.*<code class="live"> {2}greeting: bye<\/code><\/td><td class="manager">kubectl-edit<\/td>/s);
    expect(page.body).not.toContain('(redacted)');
  });

  it('draws a cluster\'s last hour as sparklines, each with a sentence and a table', async () => {
    for (const [index, queued] of [3, 8, 2].entries()) {
      await appendClusterSample(fixture.redis, fixture.store.keys, 'edge', { at: new Date(Date.now() - (3 - index) * 15_000).toISOString(), queued, runP50: 120 + index, runP99: 900, failing: 1, ...(index > 0 ? { failedRuns: index === 2 ? 6 : 0 } : {}), failedRunsTotal: index === 2 ? 6 : 0 }, 240);
    }
    const page = await get('/clusters/edge');
    expect(page.body).toMatch(/<figure class="chart sparkline" id="chart-queued"><figcaption><strong>Queued jobs<\/strong> <span class="chart-now">2 jobs<\/span>/);
    expect(page.body).toMatch(/<svg [^>]*role="img" aria-label="Queued jobs: Now 2 jobs; lowest 2 jobs, highest 8 jobs, over 3 samples/);
    // Failures are failed runs per interval, not the one failing object: 6 in the last, none before, no count in the first.
    expect(page.body).toMatch(/<figure class="chart sparkline" id="chart-failed-runs"><figcaption><strong>Failed runs per interval<\/strong> <span class="chart-now">6 runs<\/span>/);
    expect(page.body).toMatch(/id="chart-failed-runs".*aria-label="Failed runs per interval: Now 6 runs; lowest 0 runs, highest 6 runs, over 2 samples/s);
    expect((await get('/clusters/shared')).body).toContain('id="charts-none"');
  });

  it('draws an object\'s runs per cluster and commit-to-live bars', async () => {
    const key = 'core/ConfigMap/shop/c';
    const started = new Date(commitTime.getTime() + 89_500).toISOString();
    await fixture.store.appendHistory('shared', key, { revision, startedAt: started, durationMs: 500, result: 'succeeded', changes: { created: 1, configured: 0, unchanged: 0, deleted: 0 } });
    const page = await get(`/objects/shared/${key}`);
    expect(page.body).toMatch(/<figure class="chart lanes" id="object-lanes">/);
    expect(page.body).toMatch(/id="object-commit-to-live".*<td>aaaaaaa shop: two replicas<\/td><td>shared<\/td><td class="num">90\.0 s<\/td>/s);
  });
});
