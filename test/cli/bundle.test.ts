// The built `tidemark` bundle (scripts/build.mjs, what the image and `npm run build` ship), run as an
// executable the way a user runs it: `--help`, a subcommand's `--help`, and `status` against a real
// dashboard on the rig's Redis. A bundle that cannot start (last session: "Dynamic require of
// node:events" from the bundled commander) fails here, not in a user's terminal.
import { randomUUID } from 'node:crypto';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { operatorToken, seededStatus, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { repoRoot, run } from '../deploy/render';
import { runProgram, type TidemarkRun } from './run-tidemark';

const outdir = `test-artifacts/cli-bundle-${randomUUID().slice(0, 8)}`;
const bundle = join(repoRoot, outdir, 'cli/main.js');
let fixture: DashboardFixture;
let server = '';

/** runBundle executes the bundle itself (its `#!/usr/bin/env node` line), with only the environment given. */
const runBundle = (args: readonly string[], env: Record<string, string> = {}): Promise<TidemarkRun> => runProgram(bundle, args, env);

beforeAll(async () => {
  await run(process.execPath, ['scripts/build.mjs', '--outdir', outdir], repoRoot);
  // apps/cli/package.json makes dist/main.js an ES module; the test's folder needs the same.
  await writeFile(join(repoRoot, outdir, 'package.json'), '{ "type": "module" }\n');
  await chmod(bundle, 0o755);
  fixture = await startDashboardFixture(inject('redisUrl'));
  server = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'shop', 'settings'));
}, 300_000);

afterAll(async () => {
  await fixture?.stop();
  await rm(join(repoRoot, outdir), { recursive: true, force: true });
});

describe('the built tidemark bundle', () => {
  it('starts and prints its help, listing every subcommand', async () => {
    const help = await runBundle(['--help']);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tidemark/m);
    for (const command of ['status', 'get', 'describe', 'source', 'reconcile', 'suspend', 'resume', 'retry', 'preview', 'diff']) {
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
    const statusHelp = await runBundle(['status', '--help']);
    expect(statusHelp.code).toBe(0);
    expect(statusHelp.stdout).toMatch(/^Usage: tidemark status/m);
  });

  it('status reads a real dashboard: a table, then the API\'s JSON', async () => {
    const table = await runBundle(['status'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: viewerToken });
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Objects {2}1 total, 1 Ready/m);
    const json = await runBundle(['status', '-o', 'json'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: viewerToken });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { counts: { total: number } }).counts.total).toBe(1);
  });

  it('suspend writes the flag through the dashboard (an operator action), and a wrong token exits 1', async () => {
    const suspended = await runBundle(['suspend', 'ConfigMap/shop/settings', '-c', 'shared'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: operatorToken });
    expect(suspended.stderr).toBe('');
    expect(suspended.code).toBe(0);
    expect((await fixture.store.get('shared', 'core/ConfigMap/shop/settings'))?.suspended).toBe(true);
    const refused = await runBundle(['status'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: 'not-a-token-of-this-dashboard' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain('not-a-token-of-this-dashboard');
  });
});
