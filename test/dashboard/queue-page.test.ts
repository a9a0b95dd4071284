// The queue page and retry against real BullMQ workers: a terminal failure shows with its error, retry runs it again.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TerminalError } from '@tidemark/contracts';
import { ReconcileWorkers } from '@tidemark/queue';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

let fixture: DashboardFixture;
let workers: ReconcileWorkers;
const key = 'core/ConfigMap/shop/broken';
let runs = 0;

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'broken'));
  workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix: fixture.prefix, clusters: ['shared'], onError: () => undefined });
  await workers.start(async (job) => {
    runs += 1;
    if (job.objectKey === key) throw new TerminalError('ValidationFailed', 'ConfigMap broken is invalid: data.size <must be a string>.');
    return { kind: 'done' };
  });
});
afterAll(async () => {
  await workers?.close();
  await fixture?.stop();
});

describe('queue page', () => {
  it('lists a failing object with its last error, and an operator retries it', async () => {
    const reconcile = await fixture.app.inject({ method: 'POST', url: '/api/objects/shared/core/ConfigMap/shop/broken/reconcile', headers: { authorization: `Bearer ${operatorToken}` } });
    expect(reconcile.json()).toMatchObject({ queue: 'queued' });
    await until(async () => (await fixture.queues.figures()).some((figures) => figures.failingObjects === 1));

    const page = await fixture.app.inject({ url: '/queue', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(page.body).toContain('ConfigMap broken is invalid: data.size &lt;must be a string&gt;.');
    expect(page.body).toMatch(/ValidationFailed <span class="badge state-stalled">terminal<\/span>/);
    expect(page.body).not.toContain('Retry all failed');
    const operatorPage = await fixture.app.inject({ url: '/queue', headers: { authorization: `Bearer ${operatorToken}` } });
    expect(operatorPage.body).toContain('Retry all failed');

    const before = runs;
    const retry = await fixture.app.inject({ method: 'POST', url: `/api/queue/shared/retry?objectKey=${encodeURIComponent(key)}`, headers: { authorization: `Bearer ${operatorToken}` } });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual({ action: 'retry', cluster: 'shared', objectKey: key, retried: 1 });
    await until(async () => runs > before);
  });
});
