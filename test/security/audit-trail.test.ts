// The audit trail over real HTTP on the rig's Redis: an action records who, what, the target and
// the result; refused attempts are recorded too; and deleting or editing a record with redis-cli
// makes `tidemark audit verify` fail, naming the record.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { runTidemark } from '../cli/run-tidemark';

const run = promisify(execFile);
const scopedToken = 'scoped-token-0123456789abcdef';
const key = 'core/ConfigMap/shop/settings';
let fixture: DashboardFixture;
let server: string;

interface Record {
  id: string; action: string; result: string; status: number; requestId?: string; client?: string;
  actor: { name: string; role?: string; via?: string }; target: { type: string; name: string; cluster?: string }; parameters: { [name: string]: unknown };
}

const redisCli = async (...args: string[]) => (await run('redis-cli', ['-u', inject('redisUrl'), ...args])).stdout.trim();
const post = (path: string, headers: { [name: string]: string } = {}, body?: string) => fetch(`${server}${path}`, { method: 'POST', redirect: 'manual', headers, ...(body === undefined ? {} : { body }) });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
async function records(query: string): Promise<Record[]> {
  const response = await fetch(`${server}/api/audit?${query}`, { headers: bearer(viewerToken) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record[];
}
const verify = () => runTidemark(['audit', 'verify'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: viewerToken });

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), { tokens: [{ name: 'sam', role: 'operator', token: scopedToken, scope: { sources: ['elsewhere'], namespaces: [], clusters: [] } }] });
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'settings'));
  server = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => fixture?.stop());

describe('audit trail', () => {
  it('records an action through the API with its principal, target, result, request id and client', async () => {
    const response = await post(`/api/objects/shared/${key}/suspend`, bearer(operatorToken));
    expect(response.status).toBe(200);
    const [record] = await records('action=object.suspend');
    expect(record).toMatchObject({
      actor: { name: 'otto', role: 'operator', via: 'bearer' }, action: 'object.suspend',
      target: { type: 'object', cluster: 'shared', name: key }, result: 'ok', status: 200, client: '127.0.0.1',
    });
    expect(record!.requestId).toBeTruthy();
  });

  it('records denied attempts: a viewer (403), no credentials (401), a scoped token out of its scope', async () => {
    expect((await post(`/api/objects/shared/${key}/resume`, bearer(viewerToken))).status).toBe(403);
    expect((await post('/api/sources/main-repo/suspend')).status).toBe(401);
    const denied = await records('result=denied');
    expect(denied.map((record) => [record.actor.name, record.action, record.status])).toEqual([
      ['anonymous', 'source.suspend', 401],
      ['vera', 'object.resume', 403],
    ]);
    // A scoped token reads none of the trail: it names every source.
    expect((await fetch(`${server}/api/audit`, { headers: bearer(scopedToken) })).status).toBe(403);
  });

  it('records a form post from the UI without its CSRF token, and shows the trail on /audit with filters', async () => {
    const login = await post('/login', { 'content-type': 'application/x-www-form-urlencoded' }, `token=${operatorToken}&next=%2F`);
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    const session = (await (await fetch(`${server}/api/session`, { headers: { cookie } })).json()) as { csrf: string };
    const form = await fetch(`${server}/queue/shared/retry`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${session.csrf}&objectKey=${encodeURIComponent(key)}` });
    expect(form.status).toBe(303);
    const [retry] = await records('action=queue.retry');
    expect(retry).toMatchObject({ actor: { name: 'otto', via: 'session' }, target: { type: 'object', cluster: 'shared', name: key }, parameters: { objectKey: key }, result: 'ok', status: 303 });
    expect(JSON.stringify(retry)).not.toContain(session.csrf);
    const page = await fetch(`${server}/audit?actor=vera&result=denied`, { headers: bearer(viewerToken) });
    const body = await page.text();
    expect(page.status).toBe(200);
    expect(body).toContain('object.resume');
    expect(body).not.toContain('queue.retry');
    expect(body).toMatch(/<option value="denied" selected>/);
  });

  it('tidemark audit verify holds, then names a record deleted with redis-cli', async () => {
    const intact = await verify();
    expect(intact.stdout).toMatch(/The audit chain holds: [4-9] records checked/);
    expect(intact.code).toBe(0);
    const ids = (await records('limit=100')).map((record) => record.id).reverse();
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(await redisCli('XDEL', `${fixture.prefix}:audit`, ids[1]!)).toBe('1');
    const broken = await verify();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`broken at record ${ids[2]}`);
    expect(broken.stdout).toContain(`between record ${ids[0]} and record ${ids[2]}`);
  });
});

describe('audit trail edited by hand', () => {
  let other: DashboardFixture;
  let otherServer: string;
  beforeAll(async () => {
    other = await startDashboardFixture(inject('redisUrl'));
    otherServer = await other.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => other?.stop());

  it('names a record whose content was changed', async () => {
    for (const verb of ['fetch', 'suspend']) await fetch(`${otherServer}/api/sources/main-repo/${verb}`, { method: 'POST', headers: bearer(viewerToken) });
    const stream = `${other.prefix}:audit`;
    const [newestId, field, raw] = (await redisCli('XREVRANGE', stream, '+', '-', 'COUNT', '1')).split('\n');
    expect(field).toBe('record');
    const newest = JSON.parse(raw!) as { actor: { name: string } };
    expect(newest.actor.name).toBe('vera');
    // A stream entry cannot be rewritten in place: the edit is a delete and a forged copy, with the hash kept.
    const forged = JSON.stringify({ ...newest, actor: { ...newest.actor, name: 'nobody' } });
    await redisCli('XDEL', stream, newestId!);
    const forgedId = await redisCli('XADD', stream, '*', 'record', forged);
    const result = await runTidemark(['audit', 'verify'], { TIDEMARK_SERVER: otherServer, TIDEMARK_TOKEN: viewerToken });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`broken at record ${forgedId}: record ${forgedId} was edited`);
  });
});

describe('audit trail written by two dashboards at once', () => {
  it('keeps one unbroken chain when both replicas record actions concurrently', async () => {
    const first = await startDashboardFixture(inject('redisUrl'));
    const second = await startDashboardFixture(inject('redisUrl'), { prefix: first.prefix });
    try {
      const actions = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? first : second).app.inject({ method: 'POST', url: '/api/sources/main-repo/fetch', headers: bearer(viewerToken) }));
      expect((await Promise.all(actions)).every((response) => response.statusCode === 403)).toBe(true);
      const verdict = await first.app.inject({ url: '/api/audit/verify', headers: bearer(viewerToken) });
      expect(verdict.json()).toEqual({ ok: true, checked: 20 });
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
