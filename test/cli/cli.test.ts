// The `tidemark` binary, run as a child process against a real dashboard (listening on loopback)
// on the rig's Redis: every subcommand, -o json, exit codes, token handling.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { condition, operatorToken, seededStatus, stalledConditions, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { runTidemark } from './run-tidemark';
import { parseSourceStatus, readClusterFreeze } from '@tidemark/contracts';

let fixture: DashboardFixture;
let server: string;
let configDir: string;
const settingsKey = 'core/ConfigMap/shop/settings';
const asViewer = () => ({ TIDEMARK_SERVER: server, TIDEMARK_TOKEN: viewerToken });
const asOperator = () => ({ TIDEMARK_SERVER: server, TIDEMARK_TOKEN: operatorToken });

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  server = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  configDir = await mkdtemp(join(tmpdir(), 'tidemark-cli-'));
  const drift = [{ object: 'ConfigMap shop/settings', path: '/data/color', desired: 'blue', live: 'red', manager: 'kubectl-edit', detectedAt: new Date().toISOString() }];
  for (const cluster of ['shared', 'edge']) {
    await fixture.store.put(seededStatus(cluster, 'ConfigMap', 'shop', 'settings', cluster === 'edge' ? { drift } : {}));
  }
  await fixture.store.put(seededStatus('shared', 'Deployment', 'shop', 'web', { conditions: stalledConditions }));
  await fixture.store.put(seededStatus('shared', 'ConfigMap', 'other', 'settings', { conditions: [condition('Ready', 'True', 'ReconciliationSucceeded')] }));
  await fixture.redis.hset(fixture.store.keys.sourceStatus('main-repo'), {
    revision: 'b'.repeat(40), polledAt: new Date().toISOString(), state: 'degraded', ref: 'branch main', declaredObjects: 4, sourceErrors: 1, sourceWarnings: 1,
    commitMessage: 'shop: colour', problems: JSON.stringify([{ path: 'apps/broken.yaml', line: 7, code: 'ParseFailed', message: 'apps/broken.yaml line 7: a mapping was expected.' }]),
    warnings: JSON.stringify([{ path: 'apps/overlay/', code: 'RenderWarning', message: "kustomize warned: 'bases' is deprecated." }]),
  });
});
afterAll(async () => {
  await fixture?.stop();
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

describe('reading', () => {
  it('status: counts, sources and clusters, as a table without colour when piped and as stable JSON', async () => {
    const table = await runTidemark(['status'], asViewer());
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Objects {2}4 total, 3 Ready, 1 Stalled, 1 Drifted/m);
    expect(table.stdout).toMatch(/^CLUSTER\s+HEALTH/m);
    expect(table.stdout).toMatch(/^shared\s+\S+\s+\S+\s+3\s+2\s+1\s+0/m);
    expect(table.stdout).not.toContain('\u001b[');
    const json = await runTidemark(['status', '-o', 'json'], asViewer());
    expect(json.code).toBe(0);
    const overview = JSON.parse(json.stdout) as { counts: { total: number; Stalled: number }; clusters: Array<{ name: string }> };
    expect(overview.counts).toMatchObject({ total: 4, Stalled: 1 });
    expect(overview.clusters.map((cluster) => cluster.name).sort()).toEqual(['edge', 'shared']);
  });

  it('source: each file the source cannot read and each warning, with file and line; an unknown source exits 1', async () => {
    const shown = await runTidemark(['source', 'main-repo'], asViewer());
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^State:\s+degraded$/m);
    expect(shown.stdout).toMatch(/^Revision:\s+bbbbbbb {2}shop: colour$/m);
    expect(shown.stdout).toMatch(/^Files that cannot be read \(1\):\n\s+FILE\s+CODE\s+MESSAGE\n\s+apps\/broken\.yaml:7\s+ParseFailed\s+apps\/broken\.yaml line 7: a mapping was expected\.$/m);
    expect(shown.stdout).toMatch(/^\s+apps\/overlay\/\s+RenderWarning\s+kustomize warned: 'bases' is deprecated\.$/m);
    const json = JSON.parse((await runTidemark(['source', 'main-repo', '-o', 'json'], asViewer())).stdout) as { problems: Array<{ path: string; line: number }> };
    expect(json.problems).toEqual([expect.objectContaining({ path: 'apps/broken.yaml', line: 7 })]);
    const unknown = await runTidemark(['source', 'nowhere'], asViewer());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('nowhere');
  });

  it('get: the dashboard\'s filters, one state column per cluster', async () => {
    const all = await runTidemark(['get', 'ConfigMap'], asViewer());
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^KIND\s+NAMESPACE\s+NAME\s+(SHARED\s+EDGE|EDGE\s+SHARED)$/m);
    expect(all.stdout).toMatch(/^ConfigMap\s+shop\s+settings\s+.*Ready \(drifted\)/m);
    expect(all.stdout).not.toContain('web');
    const stalled = await runTidemark(['get', '--condition', 'Stalled', '-o', 'json'], asViewer());
    const page = JSON.parse(stalled.stdout) as { rows: Array<{ objectKey: string }> };
    expect(page.rows.map((row) => row.objectKey)).toEqual(['apps/Deployment/shop/web']);
    const namespaced = await runTidemark(['get', '-n', 'other', '-o', 'json'], asViewer());
    expect((JSON.parse(namespaced.stdout) as { rows: Array<{ objectKey: string }> }).rows.map((row) => row.objectKey)).toEqual(['core/ConfigMap/other/settings']);
  });

  it('describe: conditions, drift with its field manager, history, on each cluster of the object', async () => {
    const described = await runTidemark(['describe', 'ConfigMap/shop/settings'], asViewer());
    expect(described.stderr).toBe('');
    expect(described.code).toBe(0);
    expect(described.stdout).toContain('Cluster:    edge');
    expect(described.stdout).toContain('Cluster:    shared');
    expect(described.stdout).toMatch(/\/data\/color\s+blue\s+red\s+kubectl-edit/);
    expect(described.stdout).toMatch(/Ready\s+True\s+ReconciliationSucceeded/);
    expect(described.stdout).toMatch(/^State:\s+Ready$/m);
    const one = await runTidemark(['describe', settingsKey, '--cluster', 'edge', '-o', 'json'], asViewer());
    const details = JSON.parse(one.stdout) as Array<{ status: { cluster: string; drift: unknown[] } }>;
    expect(details).toHaveLength(1);
    expect(details[0]!.status).toMatchObject({ cluster: 'edge', drift: [{ path: '/data/color', manager: 'kubectl-edit' }] });
  });

  it('says which objects a short name matches when it is ambiguous, and exits 2', async () => {
    const ambiguous = await runTidemark(['describe', 'ConfigMap/settings'], asViewer());
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('core/ConfigMap/other/settings');
    expect(ambiguous.stderr).toContain(settingsKey);
    const missing = await runTidemark(['describe', 'ConfigMap/shop/nothing'], asViewer());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no ConfigMap named nothing in namespace shop/);
  });
});

describe('acting', () => {
  it('suspend and resume write the flag; a viewer token is refused with exit 1', async () => {
    const refused = await runTidemark(['suspend', settingsKey, '--cluster', 'shared'], asViewer());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/operator/i);
    expect((await fixture.store.get('shared', settingsKey))?.suspended).toBeFalsy();

    const suspended = await runTidemark(['suspend', settingsKey, '--cluster', 'shared'], asOperator());
    expect(suspended.stderr).toBe('');
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toContain(`suspend ${settingsKey} on shared: suspended`);
    expect((await fixture.store.get('shared', settingsKey))?.suspended).toBe(true);
    expect((await fixture.store.get('edge', settingsKey))?.suspended).toBeFalsy();

    const resumed = await runTidemark(['resume', 'ConfigMap/shop/settings', '-o', 'json'], asOperator());
    expect(resumed.code).toBe(0);
    const results = JSON.parse(resumed.stdout) as Array<{ cluster: string; suspended: boolean }>;
    expect(results.map((result) => result.cluster)).toEqual(['edge', 'shared']);
    expect((await fixture.store.get('shared', settingsKey))?.suspended).toBeFalsy();
  });

  it('source --suspend writes the flag the poller reads, --resume clears it and --fetch asks for a poll; a viewer is refused', async () => {
    const statusHash = () => fixture.redis.hgetall(fixture.store.keys.sourceStatus('main-repo'));
    const refused = await runTidemark(['source', 'main-repo', '--suspend'], asViewer());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/operator/i);
    expect(parseSourceStatus(await statusHash()).suspended).toBeUndefined();

    const suspended = await runTidemark(['source', 'main-repo', '--suspend'], asOperator());
    expect(suspended.stderr).toBe('');
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toBe('suspend source main-repo: suspended, not polled until resumed\n');
    expect(parseSourceStatus(await statusHash())).toMatchObject({ suspended: true, state: 'degraded' });

    const resumed = await runTidemark(['source', 'main-repo', '--resume', '-o', 'json'], asOperator());
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ action: 'resume', source: 'main-repo', suspended: false });
    expect(parseSourceStatus(await statusHash()).suspended).toBeUndefined();

    const fetched = await runTidemark(['source', 'main-repo', '--fetch'], asOperator());
    expect(fetched.code).toBe(0);
    expect(fetched.stdout).toContain('a poll is asked for');
    const both = await runTidemark(['source', 'main-repo', '--suspend', '--resume'], asOperator());
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--suspend and --resume');
    const unknown = await runTidemark(['source', 'nowhere', '--suspend'], asOperator());
    expect(unknown.code).toBe(1);
    expect(await fixture.redis.exists(fixture.store.keys.sourceStatus('nowhere'))).toBe(0);
  });

  it('freeze writes who, why and since, status names it, unfreeze lifts it; a viewer and a missing reason are refused', async () => {
    const refused = await runTidemark(['freeze', 'edge', '--reason', 'incident'], asViewer());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/operator/i);
    expect((await runTidemark(['freeze', 'edge'], asOperator())).code).toBe(2);
    expect(await readClusterFreeze(fixture.redis, fixture.store.keys, 'edge')).toBeUndefined();

    const frozen = await runTidemark(['freeze', 'edge', '--reason', 'incident 7'], asOperator());
    expect(frozen.stderr).toBe('');
    expect(frozen.stdout).toMatch(/^froze cluster edge \(by otto since .+: incident 7\)/);
    expect(await readClusterFreeze(fixture.redis, fixture.store.keys, 'edge')).toMatchObject({ by: 'otto', reason: 'incident 7' });
    expect((await runTidemark(['status'], asViewer())).stdout).toMatch(/Cluster edge is frozen by otto since .+: incident 7\./);

    const lifted = await runTidemark(['unfreeze', 'edge', '-o', 'json'], asOperator());
    expect(lifted.code).toBe(0);
    expect(JSON.parse(lifted.stdout)).toMatchObject({ action: 'unfreeze', cluster: 'edge', frozen: false });
    expect(await readClusterFreeze(fixture.redis, fixture.store.keys, 'edge')).toBeUndefined();
  });

  it('reconcile queues a manual run on each cluster; retry answers with the count', async () => {
    const queued = async () => {
      const depth = (await fixture.queues.figures()).find((figures) => figures.cluster === 'shared')?.depth;
      return (depth?.waiting ?? 0) + (depth?.prioritized ?? 0);
    };
    const before = await queued();
    const reconciled = await runTidemark(['reconcile', 'Deployment/shop/web', '-o', 'json'], asOperator());
    expect(reconciled.stderr).toBe('');
    expect(reconciled.code).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toEqual([{ action: 'reconcile', cluster: 'shared', objectKey: 'apps/Deployment/shop/web', queue: 'queued' }]);
    expect(await queued()).toBe(before + 1);
    const retried = await runTidemark(['retry', '--cluster', 'shared', '-o', 'json'], asOperator());
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual([{ action: 'retry', cluster: 'shared', retried: expect.any(Number) }]);
  });
});

describe('configuration and exit codes', () => {
  it('reads the token from a config file, and names the file and field it refuses', async () => {
    const good = join(configDir, 'good.json');
    await writeFile(good, JSON.stringify({ server, token: viewerToken }), { mode: 0o600 });
    const fromFile = await runTidemark(['get', '-o', 'json'], { TIDEMARK_CONFIG: good });
    expect(fromFile.stderr).toBe('');
    expect(fromFile.code).toBe(0);
    const bad = join(configDir, 'bad.json');
    await writeFile(bad, JSON.stringify({ server, password: 'x' }), { mode: 0o600 });
    const refused = await runTidemark(['status'], { TIDEMARK_CONFIG: bad });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}: unknown field "password"`);
  });

  it('exits 2 on usage errors and without a token, 1 on a refused token, never printing the token', async () => {
    expect((await runTidemark(['status'], { TIDEMARK_SERVER: server })).code).toBe(2);
    expect((await runTidemark(['get', '--page', '0'], asViewer())).code).toBe(2);
    expect((await runTidemark(['no-such-command'], asViewer())).code).toBe(2);
    expect((await runTidemark(['status', '-o', 'yaml'], asViewer())).code).toBe(2);
    const secret = 'a-wrong-token-that-must-not-be-echoed';
    const wrong = await runTidemark(['status'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: secret });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('the token from TIDEMARK_TOKEN was refused');
    expect(wrong.stderr + wrong.stdout).not.toContain(secret);
    const help = await runTidemark(['describe', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tidemark describe');
  });
});
