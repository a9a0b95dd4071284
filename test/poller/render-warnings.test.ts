// What kustomize and helm say on standard error while they succeed, through the real tools, the
// real Git server, the poller and Redis: a source warning on the unit's folder, shown on the
// source's page, with any value the tool quoted hidden.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readSourceStatus, RecordKeys } from '@tidemark/contracts';
import { GitSource, parseSourceSpec, type PollResult } from '@tidemark/git-source';
import { Poller } from '@tidemark/poller';
import { startGitServer, type GitServer } from '@tidemark/testing';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { renderTools, rendering } from '../render/render-fixture';

let server: GitServer;
let dashboard: DashboardFixture;
let cacheDir: string;
const secretDefault = 's3cret-Value-42';

beforeAll(async () => {
  server = await startGitServer();
  dashboard = await startDashboardFixture(inject('redisUrl'));
  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-render-warnings-'));
});

afterAll(async () => {
  await dashboard?.stop();
  await server?.stop();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('render warnings', () => {
  it("shows kustomize's deprecations and helm's warnings on the source page, per unit, and never a value helm quoted", async () => {
    const url = await server.createRepository('rendered');
    const copy = await server.workingCopy('rendered');
    await copy.write('deploy/base/kustomization.yaml', 'resources: [cm.yaml]\n');
    await copy.write('deploy/base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  a: b\n');
    await copy.write('deploy/overlay/kustomization.yaml', 'bases: [../base]\nnamespace: shop\n');
    // A deprecated chart whose default password is a string, given a table: helm warns and quotes the default.
    await copy.write('deploy/chart/Chart.yaml', 'apiVersion: v2\nname: shop\nversion: 0.1.0\ndeprecated: true\n');
    await copy.write('deploy/chart/values.yaml', `auth:\n  password: ${secretDefault}\n`);
    await copy.write('deploy/chart/templates/secret.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: {{ .Values.auth.password | toString | quote }}\n');
    await copy.write('deploy/chart/tidemark-render.yaml', 'helm:\n  namespace: shop\n  values:\n    auth:\n      password:\n        nested: x\n');
    await copy.commitAndPush('a kustomization with a deprecated field and a deprecated chart');

    const spec = parseSourceSpec({ name: 'rendered', url, ref: { branch: 'main' }, path: 'deploy', intervalMs: 60_000, jitter: 0 }, 'test');
    const source = new GitSource({ spec, cacheDir, rendering: rendering(await renderTools()) });
    await source.open();
    const delivered: PollResult[] = [];
    const poller = new Poller({ redis: dashboard.redis, sources: [source], prefix: dashboard.prefix, leaseTtlMs: 5_000, owner: 'render-warnings-test', onChanges: async (result) => void delivered.push(result) });
    await poller.start();
    await expect.poll(() => delivered.length, { timeout: 60_000 }).toBeGreaterThan(0);
    const keys = new RecordKeys(dashboard.prefix);
    await expect.poll(async () => (await readSourceStatus(dashboard.redis, keys, 'rendered')).revision, { timeout: 15_000 }).toBe(delivered[0]?.revision);
    await poller.stop();
    await source.close();

    expect(delivered[0]?.errors).toEqual([]);
    const api = (await dashboard.app.inject({ url: '/api/sources/rendered', headers: { authorization: `Bearer ${viewerToken}` } })).json<{ state?: string; sourceWarnings?: number; warnings?: { path: string; line?: number; code: string; message: string }[] }>();
    expect(api.state).toBe('ok');
    expect(api.warnings).toEqual(expect.arrayContaining([
      { path: 'deploy/overlay/', code: 'RenderWarning', message: "deploy/overlay/: kustomize warned: 'bases' is deprecated. Please use 'resources' instead. Run 'kustomize edit fix' to update your Kustomization automatically." },
      { path: 'deploy/chart/', code: 'RenderWarning', message: 'deploy/chart/: helm warned: This chart is deprecated' },
      { path: 'deploy/chart/', code: 'RenderWarning', message: 'deploy/chart/: helm warned: destination for shop.auth.password is a table. Ignoring non-table value (value hidden)' },
    ]));
    expect(api.sourceWarnings).toBe(3);

    const page = await dashboard.app.inject({ url: '/sources/rendered', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(page.body).toMatch(/<table id="warnings">.*<code>deploy\/overlay\/<\/code><\/td><td class="state-drifted">deploy\/overlay\/: kustomize warned: &#39;bases&#39; is deprecated/s);
    expect(page.body).toContain('id="problems-none"');
    // The quoted default reaches neither the page nor the source's record in Redis.
    expect(page.body).not.toContain(secretDefault);
    expect(JSON.stringify(await dashboard.redis.hgetall(keys.sourceStatus('rendered')))).not.toContain(secretDefault);
  });
});
