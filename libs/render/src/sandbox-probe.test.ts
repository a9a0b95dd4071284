import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type * as Sandbox from './sandbox';

/** freshSandbox is the sandbox module with nothing probed yet (its answers are kept per module). */
async function freshSandbox(): Promise<typeof Sandbox> {
  vi.resetModules();
  return import('./sandbox');
}

describe('probeSandbox', () => {
  it('gives the answers the synchronous probes give, and keeps them for those calls', async () => {
    const probed = await (await freshSandbox()).probeSandbox();
    const synchronous = await freshSandbox();
    expect(probed).toEqual({ network: synchronous.canIsolateNetwork(), credentials: synchronous.canHideCredentials() });
  });

  it.runIf(['/usr/bin/unshare', '/bin/unshare'].some((path) => existsSync(path)))('lets the event loop run while its probes run (a reconciler\'s start goes on meanwhile)', async () => {
    const sandbox = await freshSandbox();
    let turned = false;
    setImmediate(() => { turned = true; });
    // A probe run with spawnSync would resolve before the loop turned once.
    await sandbox.probeSandbox();
    expect(turned).toBe(true);
  });
});
