// `tidemark bootstrap git`, the real binary, end to end: the rig's Git server over smart HTTP (with basic
// auth), a full control plane of its own, and the reconciler's bundle. Stand-ins, named where they act:
// KWOK's simulated nodes run the chart's pods (no container starts), so the reconciler runs as a process
// beside the test, the way its pod would: the chart's tidemark.yaml read from the cluster, its env read
// from the Deployment, its ServiceAccount's own token (so the chart's RBAC applies), and a Redis of the
// rig's in place of the Redis the install points at. What it reconciles is the real cluster.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import {
  buildAppBundles, freePort, killAppProcess, startAppProcess, startControlPlane, startGitServer, startRedis,
  type AppBundles, type AppProcess, type ControlPlane, type GitServer, type TestRedis,
} from '@tidemark/testing';
import { runTidemark } from './run-tidemark';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const namespace = 'tidemark-boot';
const gitLogin = { username: 'fleet', password: 'fleet-pass-7f3a' };
let bundles: AppBundles;
let plane: ControlPlane;
let git: GitServer;
let redis: TestRedis;
let admin: ClusterConnection;
let scratch: string;
let repoUrl: string;
let reconciler: AppProcess | undefined;

const bootstrapArgs = () => [
  'bootstrap', 'git', '--url', repoUrl, '--branch', 'main', '--path', 'clusters/dev', '--interval', '2', '--timeout', '240',
  '--kubeconfig', plane.kubeconfigPath, '-n', namespace, '-f', join(scratch, 'values.yaml'), '--redis-url-file', join(scratch, 'redis-url'),
];
const gitEnv = { TIDEMARK_GIT_USERNAME: gitLogin.username, TIDEMARK_GIT_PASSWORD: gitLogin.password };

beforeAll(async () => {
  [bundles, plane, git, redis] = await Promise.all([
    buildAppBundles(repoRoot, `test-artifacts/bootstrap-${randomUUID().slice(0, 8)}`),
    startControlPlane({ name: 'bootstrap', controllers: true }),
    startGitServer({ basicAuth: gitLogin }),
    startRedis(),
  ]);
  admin = ClusterConnection.connect({ cluster: 'bootstrap', kubeconfig: plane.kubeconfig, fieldManager: 'bootstrap-test' });
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-bootstrap-test-'));
  repoUrl = await git.createRepository('fleet');
  await writeFile(join(scratch, 'values.yaml'), 'reconciler: {replicas: 1}\ndashboard: {replicas: 1}\n');
  await writeFile(join(scratch, 'redis-url'), `${redis.url}\n`);
});
afterAll(async () => {
  if (reconciler) await killAppProcess(reconciler);
  admin?.close();
  await Promise.all([plane?.stop(), git?.stop(), redis?.stop(), bundles?.remove()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('tidemark bootstrap git', () => {
  it('refuses credentials in the URL, plain http to another host and a path out of the repository', async () => {
    const cases: [string[], RegExp][] = [
      [['--url', 'https://user:secret@git.example.com/fleet.git'], /--url must not carry credentials/],
      [['--url', 'http://git.example.com/fleet.git'], /--url must be https:\/\//],
      [['--path', '../elsewhere'], /--path must be a folder inside the repository/],
      [['--branch', 'main..x'], /--branch is not a branch name/],
    ];
    for (const [override, message] of cases) {
      const args = ['bootstrap', 'git', '--url', 'https://git.example.com/fleet.git', '--branch', 'main', '--path', 'clusters/dev', ...override];
      const run = await runTidemark(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain('secret');
    }
  });

  it('commits the manifests and a Source, installs, and waits until Tidemark reads its own commit', async () => {
    const first = runTidemark(bootstrapArgs(), gitEnv);
    // The chart's pods cannot start here: once the install is applied, the stand-in reconciler starts as its pod would.
    await expect.poll(async () => getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'tidemark-reconciler-config' }), { timeout: 120_000, interval: 500 }).toBeDefined();
    reconciler = await startStandInReconciler();
    const run = await first;
    expect(run.stderr, reconciler.output).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/pushed commit [0-9a-f]{12}/);
    expect(run.stdout).toContain(`Tidemark reconciles itself from ${repoUrl} (main, clusters/dev)`);

    const copy = await git.workingCopy('fleet');
    const components = await readFile(join(copy.dir, 'clusters/dev/tidemark/components.yaml'), 'utf8');
    const source = parse((await readFile(join(copy.dir, 'clusters/dev/tidemark/source.yaml'), 'utf8')).replace(/^#.*\n---\n/, '')) as { spec: Record<string, unknown> };
    expect(components).toMatch(/^kind: Deployment$/m);
    expect(components).not.toMatch(/^kind: Secret$/m);
    expect(components).not.toContain(gitLogin.password);
    expect(source.spec).toMatchObject({ url: repoUrl, ref: { branch: 'main' }, path: 'clusters/dev', secretRef: { name: 'tidemark-git' } });
    const live = await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'tidemark' });
    const status = live?.status as { lastFetchedRevision?: string; conditions?: { type: string; status: string }[] };
    expect(status.conditions?.find((condition) => condition.type === 'Ready')?.status).toBe('True');
    expect(status.lastFetchedRevision).toBe((await copy.git('rev-parse', 'HEAD')).trim());
    // The reconciler applied its own Deployment from Git: the owner annotation names the Source.
    await expect.poll(async () => (await getObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' }))?.metadata.annotations?.['tidemark.dev/owner'], { timeout: 60_000 }).toBeDefined();
  });

  it('check passes on the bootstrapped cluster, the Source fetched', async () => {
    const run = await runTidemark(['check', '--kubeconfig', plane.kubeconfigPath, '-n', namespace]);
    expect(run.stdout).toMatch(/✓ Source tidemark-boot\/tidemark: fetched: /);
    expect(run.stdout).toContain('✓ conversion webhook: the API server converted a v1alpha1 WebApp');
    expect(run.stdout).toContain('all checks passed');
    expect(run.code).toBe(0);
  });

  it('a second run commits nothing, changes nothing and says so', async () => {
    const copy = await git.workingCopy('fleet');
    const head = (await copy.git('rev-parse', 'HEAD')).trim();
    const run = await runTidemark(bootstrapArgs(), gitEnv);
    expect(run.stderr, reconciler?.output).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the branch already holds these manifests');
    expect(run.stdout).toContain('nothing changed: Git and the cluster already hold this bootstrap');
    await copy.git('fetch', '--quiet', 'origin');
    expect((await copy.git('rev-parse', 'origin/main')).trim()).toBe(head);
  });

  it('a commit that changes the reconciler\'s log level reaches the Deployment', async () => {
    const copy = await git.workingCopy('fleet');
    const path = 'clusters/dev/tidemark/components.yaml';
    const text = await readFile(join(copy.dir, path), 'utf8');
    const changed = text.replace(/(- name: TIDEMARK_LOG_LEVEL\n\s+value: )info/, '$1debug');
    expect(changed).not.toBe(text);
    await copy.write(path, changed);
    await copy.commitAndPush('reconciler: log level debug');
    const logLevel = async () => {
      const live = await getObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' });
      const containers = (live?.spec as { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } }).template.spec.containers;
      return containers[0]?.env?.find((variable) => variable.name === 'TIDEMARK_LOG_LEVEL')?.value;
    };
    await expect.poll(logLevel, { timeout: 90_000, interval: 1_000 }).toBe('debug');
  });
});

/**
 * startStandInReconciler runs the reconciler bundle as the chart's pod would run it: the chart's
 * tidemark.yaml from its ConfigMap, with the in-cluster login replaced by a kubeconfig holding the
 * reconciler ServiceAccount's own token, local ports and cache, and the conversion webhook at a
 * loopback URL the API server can call (a pod would be reached through its Service).
 */
async function startStandInReconciler(): Promise<AppProcess> {
  const configMap = await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'tidemark-reconciler-config' }) as unknown as { data: Record<string, string> };
  const config = parse(configMap.data['tidemark.yaml']!) as Record<string, unknown>;
  await expect.poll(async () => getObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: 'tidemark-reconciler' }), { timeout: 60_000 }).toBeDefined();
  const token = (await plane.kubectl(['create', 'token', 'tidemark-reconciler', '-n', namespace, '--duration', '2h'])).trim();
  const planeConfig = parse(plane.kubeconfig) as { clusters: { cluster: Record<string, unknown> }[] };
  const kubeconfig = join(scratch, 'reconciler-kubeconfig');
  await writeFile(kubeconfig, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'in-cluster',
    clusters: [{ name: 'in-cluster', cluster: planeConfig.clusters[0]!.cluster }],
    users: [{ name: 'reconciler', user: { token } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'reconciler' } }],
  }));
  const [httpPort, conversionPort] = [await freePort(), await freePort()];
  const path = join(scratch, 'tidemark.yaml');
  await writeFile(path, stringify({
    ...config,
    cacheDir: join(scratch, 'cache'),
    http: { port: httpPort, host: '127.0.0.1' },
    conversionWebhook: { host: '127.0.0.1', port: conversionPort, url: `https://127.0.0.1:${conversionPort}/convert` },
    clusters: [{ name: 'in-cluster', kubeconfig }],
  }));
  const deployment = await getObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' });
  const env = (deployment?.spec as { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } }).template.spec.containers[0]?.env ?? [];
  const plain = Object.fromEntries(env.filter((variable) => variable.value !== undefined && !variable.name.startsWith('TIDEMARK_REDIS')).map((variable) => [variable.name, variable.value!]));
  const app = startAppProcess({
    name: 'reconciler', bundle: bundles.reconciler, startedLine: 'tidemark reconciler started',
    env: { ...plain, TIDEMARK_CONFIG: path, TIDEMARK_NAMESPACE: namespace, TIDEMARK_REDIS_URL: redis.url },
  });
  await expect.poll(() => app.started || app.child.exitCode !== null, { timeout: 60_000 }).toBe(true);
  if (!app.started) throw new Error(`the stand-in reconciler did not start:\n${app.output}`);
  return app;
}
