// Debian's Chromium driven by playwright-core; playwright never downloads a browser here.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const artifactsDir = join(import.meta.dirname, '../../test-artifacts/dashboard');

export interface Chromium {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** openChromium starts /usr/bin/chromium headless with a fresh profile directory. */
export async function openChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'tidemark-chromium-'));
  await mkdir(artifactsDir, { recursive: true });
  // launchPersistentContext passes the fresh directory as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context, page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** signIn fills the login form with a token, as a person would. */
export async function signIn(page: Page, base: string, token: string, next = '/'): Promise<void> {
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await page.fill('#token', token);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/login')), page.click('button[type=submit]')]);
}
