// The rollouts page in Debian's Chromium, under the dashboard's own CSP: a pending revision with its
// preview and the sync button (clicked as an operator: the command is queued for the driver with who
// asked), and a rollout's timeline drawn as SVG bars coloured by state by the page's stylesheet.
// Records are written with writeRolloutRecord and writePreviewReport, as their writers write them.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { takeRolloutCommands, type PreviewReport, type RolloutRecord } from '@tidemark/contracts';
import { writeRolloutRecord } from '@tidemark/fanout';
import { writePreviewReport } from '@tidemark/preview';
import { artifactsDir, openChromium, signIn, type Chromium } from './chromium';
import { operatorToken, startDashboardFixture, type DashboardFixture } from './dashboard-fixture';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
let fixture: DashboardFixture;
let browser: Chromium;
let base: string;
const violations: string[] = [];

const pending: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'waiting-approval', paused: false, wave: 0,
  waves: [{ name: 'sync', clusters: ['shared'] }], batch: [], targets: { shared: a }, cells: { shared: { wave: 0, state: 'waiting' } },
  phaseSince: minutesAgo(5), startedAt: minutesAgo(5), updatedAt: minutesAgo(5),
};
const preview: PreviewReport = {
  source: 'apps', ref: b, revision: b, baseRevision: a, state: 'done', trigger: 'request', requestedAt: minutesAgo(5), finishedAt: minutesAgo(4),
  changes: [{ cluster: 'shared', objectKey: 'apps/core/ConfigMap/shop/settings', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings', action: 'configured', fields: [{ path: '/data/level', live: 'v1', desired: 'v2' }] }],
  blastRadius: { clusters: ['shared'], namespaces: ['shop'], kinds: ['ConfigMap'], counts: { created: 0, configured: 1, unchanged: 0, deleted: 0, invalid: 0, skipped: 0 }, flagged: [] },
};
const moving: RolloutRecord = {
  source: 'web', revision: b, previous: a, phase: 'progressing', paused: false, wave: 1,
  waves: [{ name: 'canary', clusters: ['canary'] }, { name: 'prod', clusters: ['prod-a', 'prod-b'] }], batch: ['prod-a'],
  targets: { canary: b, 'prod-a': b, 'prod-b': a },
  cells: { canary: { wave: 0, state: 'ready', reachedAt: minutesAgo(10), readyAt: minutesAgo(8) }, 'prod-a': { wave: 1, state: 'applying', reachedAt: minutesAgo(6) }, 'prod-b': { wave: 1, state: 'waiting' } },
  phaseSince: minutesAgo(6), startedAt: minutesAgo(10), updatedAt: minutesAgo(6),
  held: { cluster: 'prod-a', reason: 'deny window "office" until 16:00 Europe/Berlin', since: minutesAgo(5) },
};

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  await writeRolloutRecord(fixture.redis, fixture.store.keys, pending);
  await writeRolloutRecord(fixture.redis, fixture.store.keys, moving);
  await writePreviewReport(fixture.redis, fixture.store.keys, preview);
  base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openChromium();
  browser.page.on('console', (message) => { if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text()); });
});

afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
});

describe('the rollouts page in Chromium', () => {
  it('shows the pending revision with its preview, and the timeline coloured by state, with no CSP violation', async () => {
    const { page } = browser;
    await signIn(page, base, operatorToken, '/rollouts');
    const pendingSection = page.locator(`section.rollout[data-source="apps"] .pending[data-pending="${b}"]`);
    await expect(pendingSection.locator('[data-preview-counts]').textContent()).resolves.toBe('1 changed');
    await expect(pendingSection.locator('a[href^="/previews/apps/"]').getAttribute('href')).resolves.toBe(`/previews/apps/${b}`);
    const timeline = page.locator('figure.rollout-timeline[data-timeline="web"]');
    await expect(timeline.locator('rect.rollout-bar').count()).resolves.toBe(2);
    const fill = (cluster: string) => timeline.locator(`rect.rollout-bar[data-cluster="${cluster}"]`).evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { fill: string } }).getComputedStyle(element).fill);
    const [ready, applying] = [await fill('canary'), await fill('prod-a')];
    // The stylesheet colours them (an unstyled rect is black), and differently by state.
    expect(ready).not.toBe('rgb(0, 0, 0)');
    expect(applying).not.toBe('rgb(0, 0, 0)');
    expect(ready).not.toBe(applying);
    await expect(page.locator('section.rollout[data-source="web"] [data-held="prod-a"]').textContent()).resolves.toContain('deny window "office" until 16:00 Europe/Berlin');
    await page.screenshot({ path: join(artifactsDir, 'rollouts.png'), fullPage: true });
    expect(violations).toEqual([]);
  });

  it('syncs the pending revision by its button: the command is queued with who asked, and the page comes back', async () => {
    const { page } = browser;
    await Promise.all([page.waitForURL(`${base}/rollouts`), page.click('button[data-action="rollout-sync"]')]);
    expect(await takeRolloutCommands(fixture.redis, fixture.store.keys, 'apps')).toEqual([expect.objectContaining({ verb: 'sync', by: 'otto', revision: b })]);
    expect(violations).toEqual([]);
  });
});
