// Point 11: a token limited to a source and a namespace sees, and acts on, only its objects:
// every page, the JSON API and the live event stream, over real HTTP, by bearer token and by
// session cookie. Outside the scope an object is as unknown as one that does not exist.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writePreviewReport } from '@tidemark/preview';
import { seededStatus, stalledConditions, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

const scopedViewer = 'scoped-viewer-token-0123456789ab';
const scopedOperator = 'scoped-operator-token-0123456789';
const edgeOperator = 'edge-operator-token-0123456789ab';
const scope = { sources: ['team-a'], namespaces: ['team-a'], clusters: [] };
let fixture: DashboardFixture;
let address: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (path: string, headers: Record<string, string>) => fetch(`${address}${path}`, { headers });

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), {
    tokens: [
      { name: 'ada', role: 'viewer', token: scopedViewer, scope },
      { name: 'opal', role: 'operator', token: scopedOperator, scope },
      { name: 'cleo', role: 'operator', token: edgeOperator, scope: { sources: [], namespaces: [], clusters: ['edge'] } },
    ],
  });
  const team = (source: string, namespace: string, name: string) => seededStatus('shared', 'ConfigMap', namespace, name, { source, path: `${source}/${name}.yaml` });
  await fixture.store.put(team('team-a', 'team-a', 'mine'));
  await fixture.store.put(team('team-b', 'team-b', 'theirs'));
  // The right source in a namespace outside the scope, and the right namespace from another source: both hidden.
  await fixture.store.put(team('team-a', 'team-b', 'strayed'));
  await fixture.store.put(team('team-b', 'team-a', 'borrowed'));
  address = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => fixture?.stop());

describe('a token scoped to source team-a and namespace team-a', () => {
  it('lists and counts only its objects in the API, and 404s the others', async () => {
    const objects = await (await get('/api/objects', bearer(scopedViewer))).json() as { total: number; rows: { objectKey: string }[] };
    expect(objects.rows.map((row) => row.objectKey)).toEqual(['core/ConfigMap/team-a/mine']);
    expect(objects.total).toBe(1);
    // The unscoped viewer sees all four: the scope, not the data, hides them.
    expect(((await (await get('/api/objects', bearer(viewerToken))).json()) as { total: number }).total).toBe(4);
    expect((await get('/api/objects/shared/core/ConfigMap/team-a/mine', bearer(scopedViewer))).status).toBe(200);
    for (const hidden of ['team-b/theirs', 'team-b/strayed', 'team-a/borrowed']) {
      expect((await get(`/api/objects/shared/core/ConfigMap/${hidden}`, bearer(scopedViewer))).status, hidden).toBe(404);
    }
    const overview = await (await get('/api/overview', bearer(scopedViewer))).json() as { counts: { total: number }; sources: { name: string }[] };
    expect(overview.counts.total).toBe(1);
    expect(overview.sources.map((source) => source.name)).toEqual(['team-a']);
    const sources = await (await get('/api/sources', bearer(scopedViewer))).json() as { name: string; objects: number }[];
    expect(sources).toEqual([expect.objectContaining({ name: 'team-a', objects: 1 })]);
    expect((await get('/api/sources/team-b', bearer(scopedViewer))).status).toBe(404);
    const clusters = await (await get('/api/clusters', bearer(scopedViewer))).json() as { clusters: { name: string; counts: { total: number } }[] };
    expect(clusters.clusters.find((cluster) => cluster.name === 'shared')?.counts.total).toBe(1);
  });

  it('shows only its objects on the pages (overview, objects, sources, object page)', async () => {
    for (const path of ['/', '/objects', '/sources', '/clusters']) {
      const page = await (await get(path, bearer(scopedViewer))).text();
      expect(page, path).not.toMatch(/theirs|strayed|borrowed|team-b/);
    }
    expect(await (await get('/objects', bearer(scopedViewer))).text()).toContain('mine');
    expect(await (await get('/objects', bearer(viewerToken))).text()).toContain('theirs');
    expect((await get('/objects/shared/core/ConfigMap/team-b/theirs', bearer(scopedViewer))).status).toBe(404);
    expect((await get('/sources/team-b', bearer(scopedViewer))).status).toBe(404);
  });

  it('refuses actions outside the scope, and a whole-cluster retry', async () => {
    const post = (path: string) => fetch(`${address}${path}`, { method: 'POST', headers: bearer(scopedOperator) });
    expect((await post('/api/objects/shared/core/ConfigMap/team-b/theirs/suspend')).status).toBe(404);
    expect((await post('/api/objects/shared/core/ConfigMap/team-a/borrowed/reconcile')).status).toBe(404);
    expect((await fixture.store.get('shared', 'core/ConfigMap/team-b/theirs'))?.suspended).toBeFalsy();
    expect((await post('/api/queue/shared/retry')).status).toBe(403);
    expect((await post('/api/objects/shared/core/ConfigMap/team-a/mine/suspend')).status).toBe(200);
    expect((await fixture.store.get('shared', 'core/ConfigMap/team-a/mine'))?.suspended).toBe(true);
  });

  it('shows previews of its own sources only', async () => {
    const requestedAt = new Date().toISOString();
    for (const source of ['team-a', 'team-b']) await writePreviewReport(fixture.redis, fixture.store.keys, { source, ref: 'feature', state: 'done', trigger: 'request', requestedAt, changes: [] });
    const listed = await (await get('/api/previews', bearer(scopedViewer))).json() as { source: string }[];
    expect(listed.map((preview) => preview.source)).toEqual(['team-a']);
    expect(((await (await get('/api/previews', bearer(viewerToken))).json()) as { source: string }[]).map((preview) => preview.source).sort()).toEqual(['team-a', 'team-b']);
    expect((await get('/api/previews/team-b/feature', bearer(scopedViewer))).status).toBe(404);
    expect((await get('/api/previews/team-a/feature', bearer(scopedViewer))).status).toBe(200);
    const asked = await fetch(`${address}/api/previews`, { method: 'POST', headers: { ...bearer(scopedOperator), 'content-type': 'application/json' }, body: JSON.stringify({ source: 'team-b', ref: 'feature' }) });
    expect(asked.status).toBe(404);
  });

  it('a session signed in with the scoped token is scoped the same way', async () => {
    const login = await fetch(`${address}/login`, { method: 'POST', redirect: 'manual', body: `token=${scopedViewer}&next=%2Fobjects`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    const objects = await (await get('/api/objects', { cookie })).json() as { rows: { objectKey: string }[] };
    expect(objects.rows.map((row) => row.objectKey)).toEqual(['core/ConfigMap/team-a/mine']);
  });

  it('streams only its own cells over SSE', async () => {
    const open = async (token: string) => {
      const controller = new AbortController();
      const response = await fetch(`${address}/events`, { headers: bearer(token), signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read(); // the retry line: the stream is open
      return { reader, controller };
    };
    const scoped = await open(scopedViewer);
    const everyone = await open(viewerToken);
    await fixture.store.put(seededStatus('shared', 'ConfigMap', 'team-b', 'theirs', { source: 'team-b', conditions: stalledConditions }));
    await fixture.store.put(seededStatus('shared', 'ConfigMap', 'team-a', 'mine', { source: 'team-a', conditions: stalledConditions }));
    const readUntil = async (stream: typeof scoped, id: string) => {
      let text = '';
      while (!text.includes(id)) {
        const { value, done } = await stream.reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text;
    };
    // Each write is one batch at most, in order: by the time 'mine' arrives, 'theirs' was sent to whoever may see it.
    const unscoped = await readUntil(everyone, 'shared|core/ConfigMap/team-a/mine');
    expect(unscoped).toContain('shared|core/ConfigMap/team-b/theirs');
    const text = await readUntil(scoped, 'shared|core/ConfigMap/team-a/mine');
    expect(text).toContain('shared|core/ConfigMap/team-a/mine');
    expect(text).not.toContain('team-b');
    scoped.controller.abort();
    everyone.controller.abort();
  });
});

// Issue 38: a scope may name clusters. The same Git object on two clusters: the token sees and acts
// on its cluster's record only; the other cluster, its record, its page and its queue are unknown.
describe('a token scoped to cluster edge', () => {
  const both = 'core/ConfigMap/team-c/both';
  const post = (path: string) => fetch(`${address}${path}`, { method: 'POST', headers: bearer(edgeOperator) });

  beforeAll(async () => {
    for (const cluster of ['edge', 'shared']) await fixture.store.put(seededStatus(cluster, 'ConfigMap', 'team-c', 'both', { source: 'team-c', path: 'team-c/both.yaml' }));
  });

  it('sees its cluster only: objects, matrix columns, clusters, queue, pages', async () => {
    const objects = await (await get('/api/objects', bearer(edgeOperator))).json() as { rows: { objectKey: string }[]; clusters: string[] };
    expect(objects.rows.map((row) => row.objectKey)).toEqual([both]);
    expect(objects.clusters).toEqual(['edge']);
    expect((await get(`/api/objects/edge/${both}`, bearer(edgeOperator))).status).toBe(200);
    expect((await get(`/api/objects/shared/${both}`, bearer(edgeOperator))).status).toBe(404);
    expect((await get('/api/objects/shared/core/ConfigMap/team-a/mine', bearer(edgeOperator))).status).toBe(404);
    const clusters = await (await get('/api/clusters', bearer(edgeOperator))).json() as { clusters: { name: string; counts: { total: number } }[] };
    expect(clusters.clusters.map((cluster) => [cluster.name, cluster.counts.total])).toEqual([['edge', 1]]);
    expect((await get('/api/clusters/shared', bearer(edgeOperator))).status).toBe(404);
    expect((await get('/api/clusters/edge', bearer(edgeOperator))).status).toBe(200);
    expect((await get('/clusters/shared', bearer(edgeOperator))).status).toBe(404);
    const queue = await (await get('/api/queue', bearer(edgeOperator))).json() as { figures: { cluster: string }[] };
    expect(queue.figures.map((entry) => entry.cluster)).toEqual(['edge']);
    expect(await (await get('/clusters', bearer(edgeOperator))).text()).not.toContain('data-cluster="shared"');
    // The unscoped viewer still sees both clusters: the scope, not the data, hides one.
    expect(((await (await get('/api/objects', bearer(viewerToken))).json()) as { clusters: string[] }).clusters).toEqual(['edge', 'shared']);
  });

  it('acts on its cluster only: object actions, retry, and no source-wide or cluster-wide stop', async () => {
    expect((await post(`/api/objects/shared/${both}/suspend`)).status).toBe(404);
    expect((await fixture.store.get('shared', both))?.suspended).toBeFalsy();
    expect((await post(`/api/objects/edge/${both}/suspend`)).status).toBe(200);
    expect((await fixture.store.get('edge', both))?.suspended).toBe(true);
    expect((await post('/api/queue/shared/retry')).status).toBe(404);
    expect((await post('/api/queue/edge/retry')).status).toBe(200);
    // A source and a preview span every cluster; a cluster freeze stays refused to any scoped token.
    expect((await post('/api/sources/team-c/suspend')).status).toBe(403);
    const freeze = await fetch(`${address}/api/clusters/edge/freeze`, { method: 'POST', headers: { ...bearer(edgeOperator), 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'maintenance' }) });
    expect(freeze.status).toBe(403);
  });

  it('sees and asks for no previews, since a preview spans every cluster of its source', async () => {
    await writePreviewReport(fixture.redis, fixture.store.keys, { source: 'team-c', ref: 'feature', state: 'done', trigger: 'request', requestedAt: new Date().toISOString(), changes: [] });
    expect(await (await get('/api/previews', bearer(edgeOperator))).json()).toEqual([]);
    expect((await get('/api/previews/team-c/feature', bearer(edgeOperator))).status).toBe(404);
    const asked = await fetch(`${address}/api/previews`, { method: 'POST', headers: { ...bearer(edgeOperator), 'content-type': 'application/json' }, body: JSON.stringify({ source: 'team-c', ref: 'feature' }) });
    expect(asked.status).toBe(404);
  });
});
