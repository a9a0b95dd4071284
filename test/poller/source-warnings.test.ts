// A YAML file the parser accepts with a warning, pushed to the rig's real Git server: the warning
// reaches the source's page with file and line through the real poller and Redis, never stderr.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readSourceStatus, RecordKeys } from '@tidemark/contracts';
import { GitSource, parseSourceSpec, type PollResult } from '@tidemark/git-source';
import { Poller } from '@tidemark/poller';
import { startGitServer, type GitServer } from '@tidemark/testing';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let server: GitServer;
let dashboard: DashboardFixture;
let cacheDir: string;

beforeAll(async () => {
  server = await startGitServer();
  dashboard = await startDashboardFixture(inject('redisUrl'));
  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-warnings-'));
});

afterAll(async () => {
  await dashboard?.stop();
  await server?.stop();
  await rm(cacheDir, { recursive: true, force: true });
});

/** capturedStderr records what reaches the process's stderr and its warning channel while `run` runs. */
async function capturedStderr<T>(run: () => Promise<T>): Promise<{ result: T; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  const onWarning = (warning: Error) => (stderr += `warning event: ${warning.message}\n`);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  process.on('warning', onWarning);
  try {
    const result = await run();
    // process.emitWarning delivers on a later tick: let one pass before looking.
    await new Promise((resolve) => setImmediate(resolve));
    return { result, stderr };
  } finally {
    process.stderr.write = write;
    process.off('warning', onWarning);
  }
}

describe('source warnings', () => {
  it('shows a key that is a collection as a warning with file and line on the source page, and nothing on stderr', async () => {
    const url = await server.createRepository('warned');
    const copy = await server.workingCopy('warned');
    await copy.write('apps/odd.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\ndata:\n  plain: yes\n  ? [a, b]\n  : c\n');
    await copy.commitAndPush('a ConfigMap with a collection key');

    const spec = parseSourceSpec({ name: 'warned', url, ref: { branch: 'main' }, intervalMs: 60_000, jitter: 0 }, 'test');
    const source = new GitSource({ spec, cacheDir });
    await source.open();
    const delivered: PollResult[] = [];
    const poller = new Poller({ redis: dashboard.redis, sources: [source], prefix: dashboard.prefix, leaseTtlMs: 5_000, owner: 'warnings-test', onChanges: async (result) => void delivered.push(result) });
    const { stderr } = await capturedStderr(async () => {
      await poller.start();
      await expect.poll(() => delivered.length, { timeout: 15_000 }).toBeGreaterThan(0);
      // The record is written after onChanges returns.
      await expect.poll(async () => (await readSourceStatus(dashboard.redis, new RecordKeys(dashboard.prefix), 'warned')).revision, { timeout: 15_000 }).toBe(delivered[0]?.revision);
    });
    await poller.stop();
    await source.close();

    expect(stderr).not.toMatch(/stringified|collection/i);
    expect(delivered[0]?.errors).toEqual([]);
    const page = await dashboard.app.inject({ url: '/sources/warned', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<table id="warnings">.*<code>apps\/odd\.yaml:7<\/code><\/td><td class="state-drifted">apps\/odd\.yaml:7: a mapping key is a collection \(\[a, b\]\)/s);
    expect(page.body).toMatch(/<td>ParserWarning<\/td>/);
    // A warning holds nothing back: the object is declared and the source is not degraded.
    expect(page.body).toContain('id="problems-none"');
    const api = (await dashboard.app.inject({ url: '/api/sources/warned', headers: { authorization: `Bearer ${viewerToken}` } })).json<{ state?: string; declaredObjects?: number; sourceWarnings?: number; warnings?: { path: string; line?: number; code: string }[] }>();
    expect(api).toMatchObject({ state: 'ok', declaredObjects: 1, sourceWarnings: 1, warnings: [{ path: 'apps/odd.yaml', line: 7, code: 'ParserWarning' }] });
  });
});
