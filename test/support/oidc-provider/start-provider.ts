import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { ProviderControl, ProviderSetup } from './provider-setup';

export type { ProviderSetup, ProviderUser } from './provider-setup';

/** TestProvider is panva's oidc-provider running in its own process on loopback. */
export interface TestProvider {
  issuer: string;
  /** setGroups changes a user's groups; they apply from the user's next sign-in. */
  setGroups(user: string, groups: string[]): Promise<void>;
  /** misbehave makes the next ID token the provider issues be for another client, expired, or wrongly signed. */
  misbehave(kind: NonNullable<ProviderControl['misbehave']>): Promise<void>;
  stop(): Promise<void>;
}

/** startTestProvider starts the provider process and waits until it listens. */
export async function startTestProvider(setup: ProviderSetup): Promise<TestProvider> {
  const main = fileURLToPath(new URL('./provider-main.ts', import.meta.url));
  const child = fork(main, [JSON.stringify(setup)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited with code ${code} before it listened`)));
  });
  const control = (message: ProviderControl) => new Promise<void>((resolve) => {
    child.once('message', () => resolve());
    child.send(message);
  });
  return {
    issuer: `http://127.0.0.1:${port}`,
    setGroups: (user, groups) => control({ groups: { user, groups } }),
    misbehave: (kind) => control({ misbehave: kind }),
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}

/**
 * signInAtProvider fills the provider's own login form (oidc-provider's devInteractions) as a
 * person would, on the page it shows; any password is taken, the login names the account.
 */
export async function signInAtProvider(page: Page, user: string): Promise<void> {
  await page.waitForSelector('input[name=login]');
  await page.fill('input[name=login]', user);
  await page.fill('input[name=password]', 'any-password');
  await page.click('button[type=submit]');
}
