// Issue 34, item 19: a Source object's source name is `<namespace>.<name>`, and a Source's name may
// hold dots itself (a DNS subdomain) and run to 253 characters. The dashboard's source routes, its
// preview routes and the preview queue take every such name, and a preview's job id joins its parts
// with `/`, which no source name holds, so the source is read back from an id unambiguously.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PreviewQueue, previewJobId } from '@tidemark/queue';
import { startRedis, type TestRedis } from '@tidemark/testing';
import { startDashboardFixture, operatorToken, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

const dotted = 'team-a.web.v2';
const long = `team-a.${'a'.repeat(63)}.${'b'.repeat(63)}.example`;
let redis: TestRedis;
let previews: PreviewQueue;
let fixture: DashboardFixture;

beforeAll(async () => {
  redis = await startRedis();
  previews = new PreviewQueue({ connection: redis.url, prefix: `names-${randomUUID().slice(0, 8)}` });
  await previews.start();
  fixture = await startDashboardFixture(redis.url, { previews });
  for (const name of [dotted, long]) {
    await fixture.redis.hset(fixture.store.keys.sourceStatus(name), { revision: 'b'.repeat(40), polledAt: new Date().toISOString(), durationMs: 42, fetchedObjects: 1, sourceErrors: 0, state: 'ok' });
  }
}, 120_000);

afterAll(async () => {
  await fixture?.stop();
  await previews?.close();
  await redis?.stop();
});

const get = (url: string) => fixture.app.inject({ url, headers: { authorization: `Bearer ${viewerToken}` } });

describe('source names with dots', () => {
  it('are served by the source routes of the API and the pages', async () => {
    for (const name of [dotted, long]) {
      const api = await get(`/api/sources/${encodeURIComponent(name)}`);
      expect(api.statusCode, name).toBe(200);
      expect(api.json()).toMatchObject({ name });
      expect((await get(`/sources/${encodeURIComponent(name)}`)).statusCode, name).toBe(200);
    }
    expect((await get('/api/sources/Not_A_Source')).statusCode).toBe(400);
  });

  it('can be previewed: the request is queued, and its report is read back by the preview route', async () => {
    const queued = await fixture.app.inject({ method: 'POST', url: '/api/previews', headers: { authorization: `Bearer ${operatorToken}` }, payload: { source: dotted, ref: 'feature/x' } });
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toMatchObject({ source: dotted, status: 'queued', jobId: `${dotted}/${Buffer.from('feature/x').toString('hex')}/head` });
    expect((await get(`/api/previews/${encodeURIComponent(dotted)}/${encodeURIComponent('feature/x')}`)).json()).toMatchObject({ source: dotted, state: 'queued' });
  });

  it('name a preview job whose first `/` ends the source name', () => {
    const id = previewJobId({ source: 'x.y', ref: 'main', revision: 'c'.repeat(40), pullRequest: { number: 3 } });
    expect(id).toBe(`x.y/6d61696e/${'c'.repeat(40)}/pr3`);
    expect(id.slice(0, id.indexOf('/'))).toBe('x.y');
    expect(id).not.toContain(':');
  });
});
