// Reading status through the API and pages: matrix filters and pages, detail, redaction, escaping, live events.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeClusterHealth } from '@tidemark/cluster-health';
import { progressingConditions, seededStatus, stalledConditions, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

let fixture: DashboardFixture;
const headers = { authorization: `Bearer ${viewerToken}` };

interface MatrixBody { clusters: string[]; total: number; page: number; pages: number; rows: { objectKey: string; cells: Record<string, { state: string; drifted: boolean }> }[] }

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  const puts = [];
  for (let index = 0; index < 30; index += 1) {
    const name = `cm-${String(index).padStart(2, '0')}`;
    puts.push(fixture.store.put(seededStatus('shared', 'ConfigMap', index % 2 === 0 ? 'shop' : 'blog', name)));
    if (index < 10) puts.push(fixture.store.put(seededStatus('edge', 'ConfigMap', index % 2 === 0 ? 'shop' : 'blog', name, index === 3 ? { conditions: stalledConditions } : {})));
  }
  puts.push(fixture.store.put(seededStatus('shared', 'WebApp', 'shop', 'storefront', { conditions: progressingConditions, generation: 3, observedGeneration: 2 })));
  puts.push(fixture.store.put(seededStatus('edge', 'WebApp', 'shop', 'storefront', {
    drift: [{ path: '/spec/replicas', desired: 2, live: 5, manager: 'kubectl-edit', detectedAt: new Date().toISOString() }],
  })));
  puts.push(fixture.store.put(seededStatus('shared', 'Namespace', '', 'shop')));
  await Promise.all(puts);
  await fixture.redis.hset(fixture.store.keys.sourceStatus('main-repo'), { revision: 'b'.repeat(40), polledAt: new Date().toISOString(), durationMs: 42, fetchedObjects: 41, sourceErrors: 0, state: 'ok' });
  // No wait: the cache loaded at ready(), and each request syncs it with the writes made before.
});
afterAll(async () => fixture?.stop());

const objects = async (query: string) => {
  const response = await fixture.app.inject({ url: `/api/objects?${query}`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<MatrixBody>();
};

describe('objects matrix', () => {
  it('lists every object once with a cell per cluster, sorted, in pages', async () => {
    const first = await objects('pageSize=10');
    expect(first.clusters).toEqual(['edge', 'shared']);
    expect(first.total).toBe(32);
    expect(first.pages).toBe(4);
    expect(first.rows.map((row) => row.objectKey)[0]).toBe('core/ConfigMap/blog/cm-01');
    expect(Object.keys(first.rows[0]!.cells).sort()).toEqual(['edge', 'shared']);
    const last = await objects('pageSize=10&page=4');
    expect(last.rows.map((row) => row.objectKey)).toEqual(['tidemark.dev/WebApp/shop/storefront', 'core/Namespace/_/shop'].sort());
    const all = new Set([...(await objects('pageSize=500')).rows.map((row) => row.objectKey)]);
    expect(all.size).toBe(32);
  });

  it('filters by kind, namespace, cluster, condition and free text', async () => {
    expect((await objects('kind=WebApp')).total).toBe(1);
    expect((await objects('namespace=blog')).total).toBe(15);
    const edge = await objects('cluster=edge&pageSize=100');
    expect(edge.total).toBe(11);
    expect(edge.clusters).toEqual(['edge']);
    const stalled = await objects('condition=Stalled');
    expect(stalled.rows.map((row) => row.objectKey)).toEqual(['core/ConfigMap/blog/cm-03']);
    expect(stalled.rows[0]!.cells.edge?.state).toBe('Stalled');
    expect((await objects('condition=Stalled&cluster=shared')).total).toBe(0);
    expect((await objects('condition=Reconciling')).rows.map((row) => row.objectKey)).toEqual(['tidemark.dev/WebApp/shop/storefront']);
    const drifted = await objects('condition=Drifted');
    expect(drifted.rows[0]?.cells.edge?.drifted).toBe(true);
    expect((await objects('q=CM-2')).total).toBe(10);
    expect((await objects('q=apps/storefront.yaml')).total).toBe(1);
  });

  it('refuses bad filters with 400 BadRequest (unknown parameters are ignored)', async () => {
    expect((await objects('colour=red')).total).toBe(32);
    for (const query of ['pageSize=0', 'pageSize=501', 'page=-1', 'condition=Happy', 'q=' + 'x'.repeat(201)]) {
      const response = await fixture.app.inject({ url: `/api/objects?${query}`, headers });
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ code: 'BadRequest' });
    }
  });
});

describe('overview, clusters, queue', () => {
  it('counts Ready, Reconciling, Stalled and Drifted, and shows the source record', async () => {
    const overview = (await fixture.app.inject({ url: '/api/overview', headers })).json<{ counts: Record<string, number>; sources: { name: string; revision: string; fetchedObjects: number }[]; clusters: { name: string; counts: Record<string, number> }[] }>();
    expect(overview.counts).toMatchObject({ total: 43, Ready: 41, Reconciling: 1, Stalled: 1, Drifted: 1 });
    expect(overview.sources).toEqual([expect.objectContaining({ name: 'main-repo', revision: 'b'.repeat(40), fetchedObjects: 41 })]);
    expect(overview.clusters.map((cluster) => [cluster.name, cluster.counts.total])).toEqual([['edge', 11], ['shared', 32]]);
    const page = await fixture.app.inject({ url: '/', headers });
    expect(page.body).toMatch(/data-count="Stalled"[^>]*>1</);
    expect(page.body).toContain('bbbbbbbbbb');
  });

  it('shows each cluster health as the health checks of the reconciler recorded it', async () => {
    await writeClusterHealth(fixture.redis, fixture.store.keys, {
      cluster: 'edge', state: 'Unavailable', since: new Date().toISOString(), lastCheck: new Date().toISOString(),
      message: 'The API server did not answer within 5000 ms.', queuePaused: true,
    });
    const body = (await fixture.app.inject({ url: '/api/clusters', headers })).json<{ clusters: { name: string; health: { state: string; queuePaused: boolean } }[] }>();
    expect(body.clusters.map((cluster) => [cluster.name, cluster.health.state])).toEqual([['edge', 'Unavailable'], ['shared', 'Unknown']]);
    const page = await fixture.app.inject({ url: '/clusters', headers });
    expect(page.body).toContain('The API server did not answer within 5000 ms.');
    expect(page.body).toMatch(/<tr data-cluster="edge">.*state-stalled[^>]*>Unavailable</s);
  });

  it('shows queue figures per cluster', async () => {
    const queue = (await fixture.app.inject({ url: '/api/queue', headers })).json<{ figures: { cluster: string; depth: { waiting: number } }[] }>();
    expect(queue.figures.map((figures) => figures.cluster).sort()).toEqual(['edge', 'shared']);
    const page = await fixture.app.inject({ url: '/queue', headers });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('reconcile.shared');
  });
});

describe('read-your-writes', () => {
  it('shows a status write in the very next request: the badge, the counts and the detail agree, and a delete too', async () => {
    const overview = async () => (await fixture.app.inject({ url: '/api/overview', headers })).json<{ counts: Record<string, number> }>().counts;
    const cell = async (key: string) => (await objects('pageSize=500')).rows.find((row) => row.objectKey === key)?.cells.shared?.state;
    const before = await overview();
    const written = seededStatus('shared', 'ConfigMap', 'shop', 'just-written', { conditions: stalledConditions });
    await fixture.store.put(written);
    expect(await cell(written.objectKey)).toBe('Stalled');
    expect(await overview()).toMatchObject({ total: before.total! + 1, Stalled: before.Stalled! + 1 });
    const detail = await fixture.app.inject({ url: '/api/objects/shared/core/ConfigMap/shop/just-written', headers });
    expect(detail.json<{ clusters: string[] }>().clusters).toEqual(['shared']);
    await fixture.store.delete('shared', written.objectKey);
    expect(await cell(written.objectKey)).toBeUndefined();
    expect(await overview()).toMatchObject({ total: before.total, Stalled: before.Stalled });
  });
});

describe('object detail', () => {
  it('returns status, history and the clusters holding the object; 404 for an unknown one', async () => {
    await fixture.store.appendHistory('edge', 'tidemark.dev/WebApp/shop/storefront', { revision: 'c'.repeat(40), startedAt: new Date().toISOString(), durationMs: 1234, result: 'failed', stage: 'apply', message: 'Apply failed: conflict.' });
    const response = await fixture.app.inject({ url: '/api/objects/edge/tidemark.dev/WebApp/shop/storefront', headers });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ status: { drift: unknown[] }; history: { durationMs: number }[]; clusters: string[] }>();
    expect(body.status.drift).toHaveLength(1);
    expect(body.history[0]?.durationMs).toBe(1234);
    expect(body.clusters).toEqual(['edge', 'shared']);
    const page = await fixture.app.inject({ url: '/objects/edge/tidemark.dev/WebApp/shop/storefront', headers });
    expect(page.body).toContain('Apply failed: conflict.');
    expect(page.body).toMatch(/<td class="object">this object<\/td><td><code>\/spec\/replicas<\/code><\/td><td><pre class="desired">2<\/pre><\/td><td><pre class="live">5<\/pre><\/td><td>kubectl-edit<\/td>/);
    const unknown = await fixture.app.inject({ url: '/api/objects/edge/core/ConfigMap/shop/missing', headers });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NotFound' });
  });

  it('never shows Secret data: drift on data fields and data-like kind status are redacted, unknown fields dropped', async () => {
    await fixture.store.put({
      ...seededStatus('shared', 'Secret', 'shop', 'db'),
      kindStatus: { lastConfigMapHash: 'abc', data: { password: 'hunter2' }, nested: { token: 's3cr3t-token' } },
      drift: [{ path: '/data/password', desired: 'aHVudGVyMg==', live: 'b3RoZXI=', manager: 'kubectl', detectedAt: new Date().toISOString() }],
      ...({ stringData: { leaked: 'plain-secret' } } as object),
    });
    for (const url of ['/api/objects/shared/core/Secret/shop/db', '/objects/shared/core/Secret/shop/db']) {
      const response = await fixture.app.inject({ url, headers });
      expect(response.statusCode).toBe(200);
      for (const secret of ['hunter2', 's3cr3t-token', 'aHVudGVyMg==', 'b3RoZXI=', 'plain-secret']) expect(response.body, `${url} shows ${secret}`).not.toContain(secret);
      expect(response.body).toContain('(redacted)');
      expect(response.body).toContain('abc');
    }
  });

  it('escapes HTML from records (a condition message cannot inject markup)', async () => {
    await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'xss', { conditions: [{ ...stalledConditions[2]!, message: '<script>alert(1)</script><img src=x onerror=alert(2)>' }], warnings: ['"quoted" & <b>bold</b>'] }));
    const page = await fixture.app.inject({ url: '/objects/shared/core/ConfigMap/shop/xss', headers });
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).toContain('&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
  });
});

describe('live updates', () => {
  it('streams a changed cell over SSE within 1 s of a store write', async () => {
    const address = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const controller = new AbortController();
    const response = await fetch(`${address}/events`, { headers, signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    await reader.read(); // the retry line: the stream is open
    await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'cm-00', { conditions: stalledConditions }));
    let text = '';
    while (!text.includes('shared|core/ConfigMap/shop/cm-00')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    // Earlier writes may share the stream; find this write's cell among the events.
    const cells = text.split('\n').filter((line) => line.startsWith('data: '))
      .flatMap((line) => (JSON.parse(line.slice(6)) as { cells: { id: string; state: string; html: string }[] }).cells);
    const cell = cells.find((entry) => entry.id === 'shared|core/ConfigMap/shop/cm-00');
    expect(cell).toMatchObject({ state: 'Stalled' });
    expect(cell!.html).toContain('state-stalled');
    controller.abort();
  });

  it('ends open event streams when the app closes, so browsers do not hold a stop (runs last)', async () => {
    const address = `http://127.0.0.1:${(fixture.app.server.address() as { port: number }).port}`;
    const response = await fetch(`${address}/events`, { headers });
    const reader = response.body!.getReader();
    await reader.read();
    const closing = fixture.app.close();
    // The server ends the stream itself (a browser would otherwise hold the stop until it left);
    // the close may still wait for the test client's idle keep-alive socket.
    await expect(async () => { while (!(await reader.read()).done); }).rejects.toThrow(/terminated/);
    await closing;
  });
});
