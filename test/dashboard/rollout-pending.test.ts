// A manual sync's pending revision on the rollouts page (issue 39): the revision that waits for an
// operator is shown with its preview (what syncing it would do on each cluster, from the preview
// report of that commit), with the sync button for the operator role only; an operator may ask for
// the preview again (a real BullMQ preview queue on the rig's Redis). The rollout record is written
// here with writeRolloutRecord, as the driver (its one writer) writes it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readPreviewReport, takeRolloutCommands, type PreviewReport, type RecordKeys, type RolloutRecord } from '@tidemark/contracts';
import { writeRolloutRecord } from '@tidemark/fanout';
import { writePreviewReport } from '@tidemark/preview';
import { PreviewQueue } from '@tidemark/queue';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
let fixture: DashboardFixture;
let queue: PreviewQueue;
let keys: RecordKeys;

const pending: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'waiting-approval', paused: false, wave: 0,
  waves: [{ name: 'sync', clusters: ['edge', 'shared'] }], batch: [],
  targets: { shared: a, edge: a }, cells: { shared: { wave: 0, state: 'waiting' }, edge: { wave: 0, state: 'waiting' } },
  phaseSince: '2026-12-06T10:00:00.000Z', startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:00:00.000Z',
};
const change = (cluster: string, action: 'created' | 'configured', name: string) => ({
  cluster, objectKey: `apps/core/ConfigMap/shop/${name}`, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name, action,
  ...(action === 'configured' ? { fields: [{ path: '/data/level', live: 'v1', desired: 'v2' }] } : { desired: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' } } }),
});
const preview: PreviewReport = {
  source: 'apps', ref: b, revision: b, baseRevision: a, state: 'done', trigger: 'request', requestedAt: '2026-12-06T10:00:01.000Z', finishedAt: '2026-12-06T10:00:05.000Z',
  changes: [change('shared', 'configured', 'settings'), change('edge', 'created', '<script>alert(1)</script>')],
  blastRadius: { clusters: ['edge', 'shared'], namespaces: ['shop'], kinds: ['ConfigMap'], counts: { created: 1, configured: 1, unchanged: 0, deleted: 0, invalid: 0, skipped: 0 }, flagged: [] },
};

const request = (method: 'GET' | 'POST', url: string, token: string, form?: string) => fixture.app.inject({
  method, url, headers: { authorization: `Bearer ${token}`, ...(form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, ...(form !== undefined ? { payload: form } : {}),
});

beforeAll(async () => {
  queue = new PreviewQueue({ connection: inject('redisUrl'), prefix: `pending-${randomUUID().slice(0, 8)}` });
  await queue.start();
  fixture = await startDashboardFixture(inject('redisUrl'), { previews: queue });
  keys = fixture.store.keys;
  await writeRolloutRecord(fixture.redis, keys, pending);
  await writePreviewReport(fixture.redis, keys, preview);
});
afterAll(async () => {
  await fixture?.stop();
  await queue?.close();
});

describe('a pending revision on the rollouts page', () => {
  it('shows the revision that waits with its preview, and the sync button to an operator', async () => {
    const page = (await request('GET', '/rollouts', operatorToken)).body;
    expect(page).toContain(`data-pending="${b}"`);
    expect(page).toMatch(/is pending: wave sync waits for an operator; the clusters stay at <code title="a{40}">/);
    expect(page).toContain('<span data-preview-counts>1 created, 1 changed</span>');
    expect(page).toContain(`href="/previews/apps/${b}"`);
    expect(page).toMatch(/data-object="apps\/core\/ConfigMap\/shop\/settings"><code>apps\/core\/ConfigMap\/shop\/settings<\/code> <span data-cluster="shared">shared <span class="badge state-reconciling" data-action="configured">changed<\/span>/);
    // Names from Git are escaped, never markup.
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('data-action="rollout-sync"');
    expect(page).toContain('data-action="rollout-preview"');
  });

  it('shows a viewer the pending revision and its preview, without the sync button', async () => {
    const page = (await request('GET', '/rollouts', viewerToken)).body;
    expect(page).toContain('<span data-preview-counts>1 created, 1 changed</span>');
    expect(page).not.toContain('data-action="rollout-');
    expect(page).toContain('Syncing a pending revision needs the operator role.');
    expect((await request('POST', '/rollouts/apps/sync', viewerToken, `revision=${b}`)).statusCode).toBe(403);
    expect((await request('POST', '/rollouts/apps/preview', viewerToken, '')).statusCode).toBe(403);
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([]);
  });

  it('queues an operator\'s sync of the pending revision for the driver, with who asked', async () => {
    const posted = await request('POST', '/rollouts/apps/sync', operatorToken, `revision=${b}`);
    expect(posted.statusCode).toBe(303);
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([expect.objectContaining({ verb: 'sync', by: 'otto', revision: b })]);
  });

  it('asks for the preview again on an operator\'s request, audited, and shows it queued', async () => {
    const posted = await request('POST', '/rollouts/apps/preview', operatorToken, '');
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/rollouts');
    expect(await readPreviewReport(fixture.redis, keys, 'apps', b)).toMatchObject({ state: 'queued', ref: b, trigger: 'request' });
    expect((await request('GET', '/rollouts', operatorToken)).body).toContain('data-preview="queued"');
    const audit = (await request('GET', '/api/audit?action=preview.', viewerToken)).json<{ actor: { name: string }; action: string; target: { name: string }; result: string }[]>();
    expect(audit.map((entry) => `${entry.actor.name} ${entry.action} ${entry.target.name} ${entry.result}`)).toEqual(expect.arrayContaining(['otto preview.request apps ok', 'vera preview.request apps denied']));
  });

  it('refuses to preview what is not pending, and says so', async () => {
    await writeRolloutRecord(fixture.redis, keys, { ...pending, phase: 'complete', targets: { shared: b, edge: b } });
    const refused = await request('POST', '/rollouts/apps/preview', operatorToken, '');
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Nothing of source apps is pending: its rollout is complete.');
    expect((await request('GET', '/rollouts', operatorToken)).body).not.toContain('data-pending=');
  });
});
