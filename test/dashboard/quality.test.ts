// The quality bar in Debian's Chromium: every page passes axe-core (no serious or critical violation) in
// light and dark mode, at 1280×800 and at a phone's width, works by keyboard, and is kept as screenshots.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appendClusterSample } from '@tidemark/cluster-health';
import { startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';
import { artifactsDir, openChromium, signIn, type Chromium } from './chromium';
import { commitTime, revision, seedPictures } from './picture-data';

const require = createRequire(import.meta.url);
let fixture: DashboardFixture;
let browser: Chromium;
let base: string;
let axeSource: string;

const pages = [
  ['overview', '/'],
  ['objects', '/objects'],
  ['rendered', '/objects/rendered?parent=tidemark.dev%2FWebApp%2Fshop%2Fstorefront'],
  ['object-webapp', '/objects/shared/tidemark.dev/WebApp/shop/storefront'],
  ['object-configmap', '/objects/shared/core/ConfigMap/shop/c'],
  ['sources', '/sources'],
  ['source', '/sources/main-repo'],
  ['clusters', '/clusters'],
  ['cluster', '/clusters/edge'],
  ['queue', '/queue'],
  ['previews', '/previews'],
  ['preview', '/previews/main-repo/feature/blue'],
] as const;
const sizes = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const;
const schemes = ['light', 'dark'] as const;

// Page expressions are strings: this file is type-checked without the DOM library.
const focusedKind = 'document.activeElement?.getAttribute("data-kind") ?? null';

interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/** axeViolations runs axe-core in the page and returns the serious and critical violations. */
async function axeViolations(): Promise<string[]> {
  const { page } = browser;
  // Evaluated through the DevTools protocol, so the page's strict CSP does not apply to the injection.
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)`);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')})`);
}

beforeAll(async () => {
  axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  fixture = await startDashboardFixture(inject('redisUrl'));
  await seedPictures(fixture);
  for (const [index, queued] of [3, 8, 5, 2].entries()) {
    await appendClusterSample(fixture.redis, fixture.store.keys, 'edge', { at: new Date(Date.now() - (4 - index) * 15_000).toISOString(), queued, runP50: 120 + index * 10, runP99: 900 - index * 50, failing: index === 3 ? 1 : 0, failedRuns: index === 3 ? 2 : 0 }, 240);
  }
  await fixture.store.appendHistory('shared', 'core/ConfigMap/shop/c', { revision, startedAt: new Date(commitTime.getTime() + 40_000).toISOString(), durationMs: 800, result: 'succeeded', changes: { created: 1, configured: 0, unchanged: 0, deleted: 0 } });
  base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openChromium();
  await signIn(browser.page, base, viewerToken);
});
afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
});

describe('dashboard quality in Chromium', () => {
  it('passes axe-core on every page in light and dark mode, at desktop and phone width, and keeps screenshots of each', async () => {
    const { page } = browser;
    const problems: string[] = [];
    for (const [sizeName, size] of sizes) {
      await page.setViewportSize(size);
      for (const scheme of schemes) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, path] of pages) {
          await page.goto(`${base}${path}`);
          await page.waitForSelector('main h1');
          for (const violation of await axeViolations()) problems.push(`${path} (${sizeName}, ${scheme}) ${violation}`);
          // Usable at this width: wide tables scroll inside the page, the page itself never scrolls sideways.
          const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
          if (overflow > 0) problems.push(`${path} (${sizeName}) scrolls sideways by ${overflow}px`);
          await page.screenshot({ path: join(artifactsDir, `${name}-${sizeName}-${scheme}.png`), fullPage: true });
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('follows the system\'s colour scheme', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    const background = async (scheme: 'light' | 'dark') => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${base}/`);
      return page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    };
    expect(await background('light')).toBe('rgb(246, 248, 250)');
    expect(await background('dark')).toBe('rgb(13, 17, 23)');
  });

  it('works by keyboard: skip to the content, open a tree node, filter the objects', async () => {
    const { page } = browser;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/objects/shared/tidemark.dev/WebApp/shop/storefront`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to the content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    // Tab through the page until the Pod's box in the resource tree has the focus, then open it.
    for (let presses = 0; presses < 40; presses += 1) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(focusedKind) === 'Pod') break;
    }
    expect(await page.evaluate(focusedKind)).toBe('Pod');
    await page.keyboard.press('Enter');
    await page.waitForFunction("location.hash.startsWith('#node-')");
    expect(await page.locator(':target').getAttribute('data-kind')).toBe('Pod');

    await page.goto(`${base}/objects`);
    await page.focus('input[name=q]');
    await page.keyboard.type('carts');
    await Promise.all([page.waitForURL(/q=carts/), page.keyboard.press('Enter')]);
    expect(await page.locator('#matrix tbody tr[data-object]').count()).toBe(1);
  });

  it('opens the rows of what a WebApp rendered under its row, by keyboard, in place, and closes them again', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/objects?kind=WebApp`);
    const toggle = page.locator('a.rendered-toggle[data-parent="tidemark.dev/WebApp/shop/storefront"]');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#matrix tr.rendered').count()).toBe(0);
    await toggle.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#matrix tr.rendered');
    const rows = 'JSON.stringify([...document.querySelectorAll("#matrix tbody tr")].map((row) => row.classList.contains("rendered") ? row.cells[0].textContent.replace("↳ ", "") : row.dataset.object))';
    expect(JSON.parse(await page.evaluate<string>(rows))).toEqual(['tidemark.dev/WebApp/shop/storefront', 'Deployment', 'Service', 'ConfigMap']);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(page.url()).toBe(`${base}/objects?kind=WebApp`);
    expect(await axeViolations()).toEqual([]);
    await page.screenshot({ path: join(artifactsDir, 'objects-webapp-opened-desktop-light.png'), fullPage: true });
    await page.keyboard.press('Enter');
    expect(await page.locator('#matrix tr.rendered').count()).toBe(0);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  });
});
