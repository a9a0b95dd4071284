// The rollout API on the rig's Redis: status as a viewer sees it, operators' actions checked by the
// engine's own rule and queued for the driver, audited, and refused to viewers and scoped tokens. The
// record is written here with writeRolloutRecord, as the driver (its one writer) writes it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RecordKeys} from '@tidemark/contracts';
import { takeRolloutCommands, type RolloutRecord } from '@tidemark/contracts';
import { writeRolloutRecord } from '@tidemark/fanout';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

const scopedOperator = 'scoped-operator-0123456789abcdef';
const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
let fixture: DashboardFixture;
let keys: RecordKeys;

const halted: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'halted', paused: false, wave: 0,
  waves: [{ name: 'canary', clusters: ['shared'] }, { name: 'prod', clusters: ['edge'] }], batch: ['shared'],
  targets: { shared: b, edge: a },
  cells: { shared: { wave: 0, state: 'failed', reachedAt: '2026-12-06T10:00:00.000Z' }, edge: { wave: 1, state: 'waiting' } },
  phaseSince: '2026-12-06T10:05:00.000Z',
  halt: { cluster: 'shared', objectKey: 'apps/Deployment/shop/web', reason: 'HealthCheckFailed: has 0 of 1 replicas available', at: '2026-12-06T10:05:00.000Z' },
  startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:05:00.000Z',
};

const request = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
  fixture.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), {
    tokens: [{ name: 'opal', role: 'operator', token: scopedOperator, scope: { sources: ['apps'], namespaces: [], clusters: [] } }],
  });
  keys = fixture.store.keys;
  await writeRolloutRecord(fixture.redis, keys, halted);
});
afterAll(async () => fixture?.stop());

describe('the rollout API', () => {
  it('shows a halted rollout: which cluster, object and why, and each cluster\'s target', async () => {
    const one = await request('GET', '/api/rollouts/apps', viewerToken);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ phase: 'halted', halt: { cluster: 'shared', objectKey: 'apps/Deployment/shop/web' }, targets: { shared: b, edge: a } });
    const all = await request('GET', '/api/rollouts', viewerToken);
    expect(all.json<{ rollouts: RolloutRecord[] }>().rollouts.map((rollout) => rollout.source)).toEqual(['apps']);
    expect((await request('GET', '/api/rollouts/other', viewerToken)).statusCode).toBe(404);
  });

  it('refuses an action the rollout cannot take with the engine\'s reason, and an unknown verb', async () => {
    const promote = await request('POST', '/api/rollouts/apps/promote', operatorToken, {});
    expect(promote.statusCode).toBe(409);
    expect(promote.json<{ message: string }>().message).toBe('Cannot promote the rollout of apps: nothing to promote: the rollout is halted.');
    const stale = await request('POST', '/api/rollouts/apps/abort', operatorToken, { revision: 'c'.repeat(40) });
    expect(stale.statusCode).toBe(409);
    expect(stale.json<{ message: string }>().message).toMatch(/a newer revision superseded it/);
    expect((await request('POST', '/api/rollouts/apps/explode', operatorToken, {})).statusCode).toBe(400);
    expect((await request('POST', '/api/rollouts/apps/abort', operatorToken, { revision: 'main' })).statusCode).toBe(400);
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([]);
  });

  it('refuses viewers and scoped tokens, and queues nothing for them', async () => {
    expect((await request('POST', '/api/rollouts/apps/abort', viewerToken, {})).statusCode).toBe(403);
    const scoped = await request('POST', '/api/rollouts/apps/abort', scopedOperator, {});
    expect(scoped.statusCode).toBe(403);
    expect(scoped.json<{ message: string }>().message).toMatch(/limited to some sources/);
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([]);
  });

  it('queues an operator\'s abort for the driver with who asked, and audits it', async () => {
    const abort = await request('POST', '/api/rollouts/apps/abort', operatorToken, {});
    expect(abort.statusCode).toBe(202);
    expect(abort.json()).toEqual({ action: 'abort', source: 'apps', revision: b, queued: true });
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([expect.objectContaining({ verb: 'abort', by: 'otto', revision: b })]);
    const audit = (await request('GET', '/api/audit?action=rollout.', viewerToken)).json<{ actor: { name: string }; action: string; target: { type: string; name: string }; result: string }[]>();
    expect(audit.map((entry) => `${entry.actor.name} ${entry.action} ${entry.target.type}/${entry.target.name} ${entry.result}`)).toEqual(expect.arrayContaining([
      'otto rollout.abort source/apps ok', 'vera rollout.abort source/apps denied', 'otto rollout.promote source/apps error',
    ]));
  });

  it('draws waves × clusters on the rollouts page, with the operator\'s forms, which queue the command and return', async () => {
    const page = (await request('GET', '/rollouts', operatorToken)).body;
    expect(page).toContain('data-halt="shared"');
    expect(page).toMatch(/data-cluster="shared" data-state="failed"><b>shared<\/b> <code title="b{40}">/);
    expect(page).toMatch(/data-cluster="edge" data-state="waiting"><b>edge<\/b> <code title="a{40}">/);
    expect(page).toContain('data-action="rollout-resume"');
    expect(page).toContain('data-action="rollout-abort"');
    expect((await request('GET', '/rollouts', viewerToken)).body).not.toContain('data-action="rollout-');
    const posted = await fixture.app.inject({ method: 'POST', url: '/rollouts/apps/resume', headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: `revision=${b}` });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/rollouts');
    expect(await takeRolloutCommands(fixture.redis, keys, 'apps')).toEqual([expect.objectContaining({ verb: 'resume', by: 'otto', revision: b })]);
  });

  it('says a record it cannot read is unreadable, rather than show a guess', async () => {
    await fixture.redis.set(keys.rollout('broken'), '{"revision":"HEAD"}');
    const broken = await request('GET', '/api/rollouts/broken', viewerToken);
    expect(broken.statusCode).toBe(409);
    expect(broken.json<{ message: string }>().message).toMatch(/rollout record of source broken in Redis is unreadable \(revision\)/);
  });
});
