// The preview pages in Debian's Chromium, on a real preview: a feature branch pushed to the rig's Git
// server and dry-run against the shared kube-apiserver by previewRevision, its report stored as the
// preview job stores it. The list links to the preview; the preview shows each object per cluster
// with its field diff, the manager a change overwrites, the API server's refusal, the Secret only as
// changed, and the blast radius. A report naming hostile markup shows it as text.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import type { PreviewReport } from '@tidemark/contracts';
import { writePreviewReport } from '@tidemark/preview';
import { startPreviewScenario, type PreviewScenario } from '../preview/preview-scenario';
import { startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { artifactsDir, openChromium, signIn, type Chromium } from './chromium';

const ref = 'feature/blue';
const otherTeamToken = 'other-team-token-0123456789abcdef';
let scenario: PreviewScenario;
let fixture: DashboardFixture;
let browser: Chromium;
let base: string;

const hostile = '<img src=x onerror="document.body.dataset.pwned=1">';
const hostileReport = (): PreviewReport => ({
  source: 'test', ref: 'hostile', state: 'done', requestedAt: new Date().toISOString(), revision: 'b'.repeat(40),
  changes: [{ cluster: 'shared', objectKey: `core/ConfigMap/ns/${hostile}`, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: hostile, action: 'invalid', message: hostile }],
});

beforeAll(async () => {
  scenario = await startPreviewScenario(inject('kubeconfig'), inject('redisUrl'), ref);
  fixture = await startDashboardFixture(inject('redisUrl'), { store: scenario.harness.statusStore, clusters: ['shared'], tokens: [{ name: 'other-team', role: 'viewer', token: otherTeamToken, scope: { sources: ['other'], namespaces: [], clusters: [] } }] });
  await writePreviewReport(fixture.redis, fixture.store.keys, { ...scenario.report, finishedAt: new Date().toISOString() });
  await writePreviewReport(fixture.redis, fixture.store.keys, hostileReport());
  base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openChromium();
  await signIn(browser.page, base, viewerToken);
});

afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
  await scenario?.stop();
});

/** changeFigure is one object's change on one cluster. */
const changeFigure = (kind: string, name: string) => browser.page.locator(`figure.preview-change[data-cluster="shared"][data-object="${kind} ${scenario.namespace}/${name}"]`);

describe('preview pages in Chromium', () => {
  it('lists the preview and opens it by its link, the branch keeping its slash', async () => {
    const { page } = browser;
    await page.goto(`${base}/previews`);
    const row = page.locator(`#previews tr[data-preview="test/${ref}"]`);
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe('done');
    await expect(row.locator('td').nth(4).textContent()).resolves.toBe('1 refused, 1 deleted, 2 created, 2 changed');
    await Promise.all([page.waitForURL(`${base}/previews/test/feature/blue`), row.locator(`a[href="/previews/test/feature/blue"]`).click()]);
    await expect(page.locator('main h1').textContent()).resolves.toMatch(/^Preview of feature\/blue/);
  });

  it('shows a changed object side by side, live left and the branch right, naming the manager it overwrites', async () => {
    const figure = changeFigure('ConfigMap', 'change');
    await expect(figure.getAttribute('data-action')).resolves.toBe('configured');
    const color = figure.locator('tr.changed[data-path="/data/color"]');
    await expect(color.locator('code.live').textContent()).resolves.toBe('  color: red');
    await expect(color.locator('code.desired').textContent()).resolves.toBe('  color: green');
    await expect(color.getAttribute('title')).resolves.toBe('/data/color — overwrites the value written by kubectl-edit');
    await expect(figure.locator('figcaption').textContent()).resolves.toContain('overwrites kubectl-edit');
    await expect(figure.locator('tr.changed[data-path="/data/size"] code.desired').textContent()).resolves.toBe('  size: L');
  });

  it('shows created and deleted objects, and the API server\'s refusal with its message', async () => {
    await expect(changeFigure('ConfigMap', 'new').getAttribute('data-action')).resolves.toBe('created');
    await expect(changeFigure('ConfigMap', 'new').locator('code.desired').allTextContents()).resolves.toContain('  c: "3"');
    await expect(changeFigure('ConfigMap', 'gone').getAttribute('data-action')).resolves.toBe('deleted');
    const refusal = changeFigure('Service', 'bad').locator('p.refusal');
    await expect(refusal.textContent()).resolves.toMatch(/^The API server refused it: .*70000/);
  });

  it('shows the Secret only as changed, with none of its values anywhere in the page', async () => {
    const secret = changeFigure('Secret', 'db');
    await expect(secret.locator('ul.hidden-fields').textContent()).resolves.toMatch(/changed/);
    await expect(secret.locator('table').count()).resolves.toBe(0);
    const content = await browser.page.content();
    for (const value of scenario.secretValues) expect(content).not.toContain(value);
  });

  it('sums up the blast radius and flags the RBAC change', async () => {
    const { page } = browser;
    await expect(page.locator('#blast-radius').textContent()).resolves.toContain(scenario.namespace);
    await expect(page.locator('#flagged li').allTextContents()).resolves.toEqual([`shared: Role ${scenario.namespace}/reader — RBAC created: who may do what changes`]);
    await page.screenshot({ path: join(artifactsDir, 'preview-real.png'), fullPage: true });
  });

  it('shows hostile names and messages as text', async () => {
    const { page } = browser;
    await page.goto(`${base}/previews/test/hostile`);
    await expect(page.locator('figure.preview-change p.refusal').textContent()).resolves.toBe(`The API server refused it: ${hostile}`);
    await expect(page.locator('figure.preview-change img').count()).resolves.toBe(0);
    await expect(page.evaluate<string | undefined>('document.body.dataset.pwned')).resolves.toBeUndefined();
  });

  it('shows a token scoped to other sources neither the preview nor its row', async () => {
    const headers = { authorization: `Bearer ${otherTeamToken}` };
    expect((await fixture.app.inject({ url: '/previews/test/feature/blue', headers })).statusCode).toBe(404);
    const list = await fixture.app.inject({ url: '/previews', headers });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('id="previews-none"');
  });

  it('answers 404 for a preview that does not exist, and needs a sign-in', async () => {
    const missing = await fixture.app.inject({ url: '/previews/test/no-such-branch', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(missing.statusCode).toBe(404);
    const anonymous = await fixture.app.inject({ url: '/previews/test/feature/blue' });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/login?next=%2Fpreviews%2Ftest%2Ffeature%2Fblue');
  });
});
