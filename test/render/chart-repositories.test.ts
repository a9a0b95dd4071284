// Helm dependencies from a real HTTP chart repository: charts packaged with the pinned helm,
// indexed with `helm repo index`, served with basic auth on loopback. The server counts what it
// answers, so a cache hit is shown to make no request at all. Credentials come from a Secret in
// the rig's kube-apiserver, read by the reconciler's own code.
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyObject, ClusterConnection, deleteObject } from '@tidemark/cluster';
import type { GitSource, PollResult, UnitRendering } from '@tidemark/git-source';
import { ChartRepositories, createBuiltinRenderers, RendererRegistry, UnitRenderer, type ChartRepositorySpec } from '@tidemark/render';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { chartRepositorySpec } from '../../apps/reconciler/src/unit-rendering';
import { SourceFixture } from '../git-source/source-fixture';
import { startChartRepository, type ChartRepositoryServer } from './chart-repository-server';
import { helmTemplate, objectsOf, renderTools, type Tools } from './render-fixture';

const credentials = { username: 'charts', password: `pw-${randomBytes(8).toString('hex')}` };
const limits = { maxArchiveBytes: 64 * 1024, maxUnpackedBytes: 1024 * 1024 };
let tools: Tools;
let charts: ChartRepositoryServer;
let git: GitServer;
let copy: WorkingCopy;
let work: string;
let cacheDir: string;
let webArchive: string;
let poll: PollResult;
let source: GitSource;
const fixture = new SourceFixture();
const namespace = `charts-${randomUUID().slice(0, 8)}`;
let admin: ClusterConnection;

/** storeSecrets puts the repository's credentials in a Secret, and a Secret with the wrong keys beside it. */
async function storeSecrets(): Promise<void> {
  admin = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig') });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'chart-auth', namespace }, data: { username: b64(credentials.username), password: b64(credentials.password) } });
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-keys', namespace }, data: { token: b64(credentials.password) } });
}

async function writeChart(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, 'charts-src', name);
  await mkdir(join(dir, 'templates'), { recursive: true });
  await writeFile(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 1.0.0\n`);
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

const webTemplate = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\ndata:\n  greeting: {{ .Values.greeting | quote }}\n';

/** The charts the repository serves: a good one, one replaced after indexing, a gzip bomb and a large one. */
async function publishCharts(): Promise<void> {
  webArchive = await charts.package(await writeChart('web', { 'values.yaml': 'greeting: hello\n', 'templates/cm.yaml': webTemplate }));
  const tampered = await writeChart('tampered', { 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: as-indexed\n' });
  await charts.package(tampered);
  await writeChart('bomb', { 'values.yaml': `padding: "${'0'.repeat(3 * 1024 * 1024)}"\n` }).then((dir) => charts.package(dir));
  await writeChart('bulky', { 'values.yaml': `noise: "${randomBytes(150 * 1024).toString('base64')}"\n` }).then((dir) => charts.package(dir));
  await charts.index();
  // The same version packaged again with other contents: its digest is no longer the index's.
  await writeFile(join(tampered, 'templates/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: swapped-in\n');
  await charts.package(tampered);
}

const umbrella = (name: string, dependency: string, version: string, repository: string) =>
  `apiVersion: v2\nname: ${name}\nversion: 0.1.0\ndependencies:\n  - name: ${dependency}\n    version: "${version}"\n    repository: ${repository}\n`;

async function pushUnits(): Promise<void> {
  await copy.write('apps/shop/Chart.yaml', umbrella('shop', 'web', '1.0.0', charts.url('charts')));
  await copy.write('apps/shop/tidemark-render.yaml', 'helm:\n  values:\n    web:\n      greeting: from-git\n');
  await copy.write('apps/tampered/Chart.yaml', umbrella('tampered-app', 'tampered', '1.0.0', charts.url('charts')));
  await copy.write('apps/bomb/Chart.yaml', umbrella('bomb-app', 'bomb', '1.0.0', charts.url('charts')));
  await copy.write('apps/bulky/Chart.yaml', umbrella('bulky-app', 'bulky', '1.0.0', charts.url('charts')));
  await copy.write('apps/no-credentials/Chart.yaml', umbrella('no-credentials', 'web', '1.0.0', charts.url('private')));
  await copy.write('apps/secret-gone/Chart.yaml', umbrella('secret-gone', 'web', '1.0.0', charts.url('gone')));
  await copy.write('apps/wrong-keys/Chart.yaml', umbrella('wrong-keys', 'web', '1.0.0', charts.url('wrong-keys')));
  await copy.write('apps/range/Chart.yaml', umbrella('range', 'web', '^1.0.0', charts.url('charts')));
  await copy.commitAndPush('charts from a repository');
}

/** renderingWith builds what a reconciler process builds: its own renderer, sharing only the disk cache. */
function renderingWith(): UnitRendering {
  const secret = (name: string) => ({ cluster: 'shared', namespace, name });
  const repositories: ChartRepositorySpec[] = [
    chartRepositorySpec({ url: charts.url('charts'), secretRef: secret('chart-auth') }, () => admin),
    chartRepositorySpec({ url: charts.url('private') }, () => admin),
    chartRepositorySpec({ url: charts.url('gone'), secretRef: secret('missing') }, () => admin),
    chartRepositorySpec({ url: charts.url('wrong-keys'), secretRef: secret('wrong-keys') }, () => admin),
  ];
  const chartRepositories = new ChartRepositories({ repositories, cacheDir, limits });
  const renderer = new UnitRenderer({ registry: new RendererRegistry(createBuiltinRenderers({ chartRepositories })), tools: { kustomize: tools.kustomize, helm: tools.helm, sops: tools.sops } });
  return { renderer };
}

function errorAt(folder: string): { code: string; message: string } | undefined {
  return poll.errors.find((error) => error.path === `${folder}/`);
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

beforeAll(async () => {
  tools = await renderTools();
  await storeSecrets();
  work = await mkdtemp(join(tmpdir(), 'tidemark-chart-suite-'));
  cacheDir = join(work, 'chart-cache');
  charts = await startChartRepository(tools.helm, credentials);
  await publishCharts();
  git = await startGitServer();
  const url = await git.createRepository('chart-deps');
  copy = await git.workingCopy('chart-deps');
  await pushUnits();
  source = await fixture.open({ url, path: 'apps' }, { rendering: renderingWith() });
  poll = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await git?.stop();
  await charts?.stop();
  if (work) await rm(work, { recursive: true, force: true });
  await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
});

describe('helm dependencies from a chart repository', () => {
  it('renders exactly what `helm template` renders with the downloaded archive vendored', async () => {
    const chart = join(work, 'expected-shop');
    await mkdir(join(chart, 'charts'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), umbrella('shop', 'web', '1.0.0', charts.url('charts')));
    await copyFile(webArchive, join(chart, 'charts/web-1.0.0.tgz'));
    const expected = objectsOf(await helmTemplate(tools, 'shop', chart, ['--namespace', 'default', '--include-crds', '--skip-tests', '--set', 'web.greeting=from-git']));
    expect([...expected.keys()]).toEqual(['core/ConfigMap/_/shop-web']);
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/shop-web'))?.object).toEqual(expected.get('core/ConfigMap/_/shop-web'));
  });

  it('downloaded the archive once, sending the credentials with every request', () => {
    const served = charts.requests.filter((request) => request.path.startsWith('/charts/') && request.status === 200).map((request) => request.path);
    expect(served.filter((path) => path === '/charts/index.yaml').length).toBeGreaterThanOrEqual(1);
    expect(served.filter((path) => path === '/charts/web-1.0.0.tgz')).toEqual(['/charts/web-1.0.0.tgz']);
    expect(charts.requests.filter((request) => request.path.startsWith('/charts/')).every((request) => request.authorized)).toBe(true);
  });

  it('refuses an archive whose digest is not the index\'s, and keeps nothing of it', async () => {
    expect(errorAt('apps/tampered')).toMatchObject({ code: 'ChartDigestMismatch', message: expect.stringMatching(/apps\/tampered\/Chart.yaml: dependency "tampered" 1.0.0 from http:\/\/127.0.0.1:\d+\/charts\/: the archive's SHA-256 digest is [0-9a-f]{64}, the repository's index.yaml says [0-9a-f]{64}; it is refused$/) });
    expect((await filesUnder(cacheDir)).filter((file) => file.includes('/tampered/'))).toEqual([]);
  });

  it('refuses an archive that inflates past the limit, and one larger than the limit as downloaded', () => {
    expect(errorAt('apps/bomb')).toMatchObject({ code: 'ChartTooLarge', message: expect.stringContaining('dependency "bomb" 1.0.0 from http://127.0.0.1') });
    expect(errorAt('apps/bomb')?.message).toContain('the archive inflates to more than 1048576 bytes and is refused');
    expect(errorAt('apps/bulky')).toMatchObject({ code: 'ChartTooLarge', message: expect.stringMatching(/bulky-1\.0\.0\.tgz is larger than 65536 bytes and is refused$/) });
  });

  it('says what to do when credentials are missing, and never shows them', () => {
    expect(errorAt('apps/no-credentials')).toMatchObject({
      code: 'ChartRepositoryFailed',
      message: expect.stringMatching(/\/private\/index.yaml answered 401 Unauthorized; the repository needs credentials: give it a secretRef \(a Secret with username and password\) in render.chartRepositories$/),
    });
    expect(errorAt('apps/secret-gone')).toMatchObject({
      code: 'ChartCredentialsMissing',
      message: expect.stringMatching(new RegExp(`apps/secret-gone/Chart.yaml: dependency "web" 1.0.0 from http://127.0.0.1:\\d+/gone/: no credentials for the repository: Secret ${namespace}/missing on cluster shared does not exist; create it with the keys username and password$`)),
    });
    expect(errorAt('apps/wrong-keys')).toMatchObject({
      code: 'ChartCredentialsMissing',
      message: expect.stringContaining(`no credentials for the repository: Secret ${namespace}/wrong-keys on cluster shared needs the keys username and password; it has token`),
    });
    const everything = JSON.stringify(poll.errors);
    expect(everything).not.toContain(credentials.password);
    expect(everything).not.toContain(Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64'));
  });

  it('refuses a version range at planning, before any request', () => {
    expect(errorAt('apps/range')).toMatchObject({ code: 'RenderFailed', message: expect.stringContaining('apps/range/Chart.yaml: dependency "web": version "^1.0.0" is not an exact version') });
    expect(poll.errors.map((error) => error.path).sort()).toEqual(['apps/bomb/', 'apps/bulky/', 'apps/no-credentials/', 'apps/range/', 'apps/secret-gone/', 'apps/tampered/', 'apps/wrong-keys/']);
  });

  it('renders from the disk cache in a new process without a single request', async () => {
    const url = await git.createRepository('shop-only');
    const shop = await git.workingCopy('shop-only');
    await shop.write('apps/shop/Chart.yaml', umbrella('shop', 'web', '1.0.0', charts.url('charts')));
    await shop.write('apps/shop/tidemark-render.yaml', 'helm:\n  values:\n    web:\n      greeting: from-cache\n');
    await shop.commitAndPush('the shop alone');
    const before = charts.requests.length;
    const fresh = await fixture.open({ url, path: 'apps' }, { rendering: renderingWith() });
    const again = await fresh.poll();
    expect(again.errors).toEqual([]);
    expect((await fresh.readObject(again.revision, 'core/ConfigMap/_/shop-web'))?.object).toMatchObject({ data: { greeting: 'from-cache' } });
    expect(charts.requests.slice(before)).toEqual([]);
  });
});
