// Helm dependencies from an OCI registry: a chart packaged with the pinned helm and pushed with
// `helm push` to a real distribution registry (htpasswd, TLS with a test CA, on loopback), pulled at
// render time by the pinned helm's own OCI client with the login from a Secret in the rig's
// kube-apiserver, read by the reconciler's own code. What renders equals `helm template` with the
// chart vendored; a wrong password is a sentence naming the Secret, never the password.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyObject, ClusterConnection, deleteObject } from '@tidemark/cluster';
import type { GitSource, PollResult, UnitRendering } from '@tidemark/git-source';
import { ChartRepositories, createBuiltinRenderers, RendererRegistry, UnitRenderer } from '@tidemark/render';
import { buildOciRegistry, run, startGitServer, startOciRegistry, type GitServer, type TestOciRegistry, type WorkingCopy } from '@tidemark/testing';
import { chartRepositorySpec } from '../../apps/reconciler/src/unit-rendering';
import { SourceFixture } from '../git-source/source-fixture';
import { helmTemplate, objectsOf, renderTools, type Tools } from './render-fixture';

const namespace = `oci-charts-${randomUUID().slice(0, 8)}`;
const fixture = new SourceFixture();
let tools: Tools;
let registry: TestOciRegistry;
let git: GitServer;
let copy: WorkingCopy;
let work: string;
let webArchive: string;
let poll: PollResult;
let source: GitSource;
let admin: ClusterConnection;

const webTemplate = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\ndata:\n  greeting: {{ .Values.greeting | quote }}\n';
const umbrella = (name: string, repository: string) =>
  `apiVersion: v2\nname: ${name}\nversion: 0.1.0\ndependencies:\n  - name: web\n    version: "1.0.0"\n    repository: ${repository}\n`;

/** helm runs the pinned helm with a throw-away home, as a user at a terminal would. */
async function helm(args: string[]): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'tidemark-helm-home-'));
  try {
    return await run('env', [`HOME=${home}`, tools.helm, ...args]);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** publishChart packages the web chart and pushes it with `helm push` to oci://<registry>/charts. */
async function publishChart(): Promise<void> {
  const dir = join(work, 'web');
  await mkdir(join(dir, 'templates'), { recursive: true });
  await writeFile(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
  await writeFile(join(dir, 'values.yaml'), 'greeting: hello\n');
  await writeFile(join(dir, 'templates/cm.yaml'), webTemplate);
  await helm(['package', dir, '--destination', join(work, 'packaged')]);
  webArchive = join(work, 'packaged', 'web-1.0.0.tgz');
  await helm(['push', webArchive, `oci://${registry.host}/charts`, '--ca-file', registry.caFile, '--registry-config', registry.registryConfig]);
}

async function storeSecrets(): Promise<void> {
  admin = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig') });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry-login', namespace }, data: { username: b64(registry.user.username), password: b64(registry.user.password) } });
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-login', namespace }, data: { username: b64(registry.user.username), password: b64('not-the-password') } });
}

/** renderingWith builds what a reconciler builds from render.chartRepositories: two names for the one registry, each with its own Secret. */
function renderingWith(): UnitRendering {
  const secret = (name: string) => ({ cluster: 'shared', namespace, name });
  const repositories = [
    chartRepositorySpec({ url: `oci://${registry.host}/charts`, certificateAuthority: registry.caPem, secretRef: secret('registry-login') }, () => admin),
    chartRepositorySpec({ url: `oci://localhost:${registry.host.split(':')[1]}/charts`, certificateAuthority: registry.caPem, secretRef: secret('wrong-login') }, () => admin),
  ];
  const chartRepositories = new ChartRepositories({ repositories, cacheDir: join(work, 'chart-cache'), helm: tools.helm });
  const renderer = new UnitRenderer({ registry: new RendererRegistry(createBuiltinRenderers({ chartRepositories })), tools: { kustomize: tools.kustomize, helm: tools.helm, sops: tools.sops } });
  return { renderer };
}

beforeAll(async () => {
  tools = await renderTools();
  await buildOciRegistry();
  registry = await startOciRegistry();
  work = await mkdtemp(join(tmpdir(), 'tidemark-oci-charts-'));
  await storeSecrets();
  await publishChart();
  git = await startGitServer();
  const url = await git.createRepository('oci-chart-deps');
  copy = await git.workingCopy('oci-chart-deps');
  await copy.write('apps/shop/Chart.yaml', umbrella('shop', `oci://${registry.host}/charts`));
  await copy.write('apps/shop/tidemark-render.yaml', 'helm:\n  values:\n    web:\n      greeting: from-git\n');
  await copy.write('apps/wrong/Chart.yaml', umbrella('wrong', `oci://localhost:${registry.host.split(':')[1]}/charts`));
  await copy.write('apps/unknown/Chart.yaml', umbrella('unknown', `oci://${registry.host}/elsewhere`));
  await copy.commitAndPush('charts from an OCI registry');
  source = await fixture.open({ url, path: 'apps' }, { rendering: renderingWith() });
  poll = await source.poll();
}, 900_000);

afterAll(async () => {
  await fixture.cleanup();
  await git?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
});

describe('helm dependencies from an OCI registry', () => {
  it('renders exactly what `helm template` renders with the pushed chart vendored', async () => {
    const chart = join(work, 'expected-shop');
    await mkdir(join(chart, 'charts'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), umbrella('shop', `oci://${registry.host}/charts`));
    await copyFile(webArchive, join(chart, 'charts/web-1.0.0.tgz'));
    const expected = objectsOf(await helmTemplate(tools, 'shop', chart, ['--namespace', 'default', '--include-crds', '--skip-tests', '--set', 'web.greeting=from-git']));
    expect([...expected.keys()]).toEqual(['core/ConfigMap/_/shop-web']);
    expect(poll.errors.find((error) => error.path === 'apps/shop/')).toBeUndefined();
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/shop-web'))?.object).toEqual(expected.get('core/ConfigMap/_/shop-web'));
  });

  it('keeps the pulled archive in the cache under its digest', async () => {
    const files = await readdir(join(work, 'chart-cache'), { recursive: true });
    expect(files.filter((file) => /web\/1\.0\.0\/[0-9a-f]{64}\.tgz$/.test(file))).toHaveLength(1);
  });

  it('a wrong password is refused with a sentence naming the Secret, never the password', () => {
    const error = poll.errors.find((candidate) => candidate.path === 'apps/wrong/');
    expect(error).toMatchObject({ code: 'ChartRepositoryFailed', message: expect.stringContaining(`dependency "web" 1.0.0 from oci://localhost:`) });
    expect(error?.message).toContain(`the credentials from Secret ${namespace}/wrong-login on cluster shared were refused`);
    expect(JSON.stringify(poll.errors)).not.toContain('not-the-password');
    expect(JSON.stringify(poll.errors)).not.toContain(registry.user.password);
  });

  it('an OCI repository render.chartRepositories does not name is refused before any pull', () => {
    expect(poll.errors.find((error) => error.path === 'apps/unknown/')).toMatchObject({
      code: 'ChartDependencyMissing',
      message: expect.stringContaining('which Tidemark does not download from unless render.chartRepositories names it'),
    });
  });
});
