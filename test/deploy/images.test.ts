// The images: their Dockerfiles follow the rules (multi-stage, non-root, production-only), and
// what they run works. The images themselves are built and run in image-run.test.ts; here the
// bundles that their build stage makes (scripts/build.mjs) run as plain processes: the
// reconciler fetches from the sample Git server (deploy/docker/git-server.mjs) and applies to the rig's API server as the
// ServiceAccount of the Kustomize base, so the RBAC there is shown to be enough for real work.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort, kubectl } from '@tidemark/testing';
import { applyForReal } from './api-server';
import { startCommand, startProgram, waitForHttp, type Started } from './processes';
import { renderBaseIn, repoRoot, run } from './render';

const suffix = randomUUID().slice(0, 8);
const canUnshareMounts = await run('unshare', ['--mount', '--propagation', 'private', 'mount', '-t', 'tmpfs', 'tmpfs', '/run'], repoRoot).then(() => true, () => false);
const rbacKinds = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);

interface ServiceAccountCredentials { namespace: string; token: string; server: string; caData: string }

/**
 * reconcilerServiceAccount installs the base's RBAC under a prefix of this test's own and gets a
 * token for the reconciler's ServiceAccount from the TokenRequest API, as the kubelet would.
 */
async function reconcilerServiceAccount(): Promise<ServiceAccountCredentials> {
  const adminPath = inject('kubeconfigPath');
  const namespace = `tm-sa-${suffix}`;
  const prefix = `sa-${suffix}-`;
  await applyForReal(adminPath, (await renderBaseIn(adminPath, namespace, prefix)).filter((object) => rbacKinds.has(object.kind)));
  const token = (await kubectl(adminPath, ['create', 'token', `${prefix}tidemark-reconciler`, '-n', namespace, '--duration', '1h'])).trim();
  const admin = parseYaml(inject('kubeconfig')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
  const cluster = admin.clusters[0]!.cluster;
  return { namespace, token, server: cluster.server, caData: cluster['certificate-authority-data'] };
}

/** serviceAccountKubeconfig writes a kubeconfig that authenticates as the reconciler's ServiceAccount. */
async function serviceAccountKubeconfig(folder: string, account: ServiceAccountCredentials): Promise<string> {
  const { token } = account;
  const cluster = { server: account.server, 'certificate-authority-data': account.caData };
  const path = join(folder, 'reconciler-sa.kubeconfig');
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'rig', cluster: { server: cluster.server, 'certificate-authority-data': cluster['certificate-authority-data'] } }],
    users: [{ name: 'reconciler', user: { token } }],
    contexts: [{ name: 'sa', context: { cluster: 'rig', user: 'reconciler' } }],
  }));
  return path;
}

/** workspaceManifests lists the package.json of every workspace, which `npm ci` needs. */
async function workspaceManifests(): Promise<string[]> {
  const root = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  const found: string[] = [];
  for (const pattern of root.workspaces) {
    const folders = pattern.endsWith('/*') ? (await readdir(join(repoRoot, pattern.slice(0, -2)))).map((name) => `${pattern.slice(0, -2)}/${name}`) : [pattern];
    for (const folder of folders) {
      if (await stat(join(repoRoot, folder, 'package.json')).then(() => true, () => false)) found.push(`${folder}/package.json`);
    }
  }
  return found;
}

/** stagesOf splits a Dockerfile into its stages, each the list of its instructions (continuations joined). */
function stagesOf(text: string): string[][] {
  const instructions = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const stages: string[][] = [];
  for (const instruction of instructions) {
    if (/^FROM\s/i.test(instruction)) stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** entrypointFlags are the node flags of a Dockerfile's ENTRYPOINT ["node", ...flags, "/app/dist/main.js"], so a test runs the bundle as the image starts it. */
async function entrypointFlags(app: string): Promise<string[]> {
  const final = stagesOf(await readFile(join(repoRoot, `deploy/docker/${app}.Dockerfile`), 'utf8')).at(-1) ?? [];
  const entrypoint = final.find((line) => line.startsWith('ENTRYPOINT'));
  const words = JSON.parse(entrypoint?.replace(/^ENTRYPOINT\s+/, '') ?? '[]') as string[];
  expect(words[0]).toBe('node');
  return words.slice(1, -1);
}

describe.each([
  ['reconciler', 9464],
  ['dashboard', 8080],
])('deploy/docker/%s.Dockerfile', (app, port) => {
  let stages: string[][] = [];
  beforeAll(async () => {
    stages = stagesOf(await readFile(join(repoRoot, `deploy/docker/${app}.Dockerfile`), 'utf8'));
  });

  it('builds in one stage (npm ci, the bundler, prune to production) and runs from another', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages[0]!;
    expect(build[0]).toBe('FROM ${NODE_BUILD_IMAGE} AS build');
    const commands = build.filter((line) => line.startsWith('RUN')).join('\n');
    expect(commands).toMatch(/npm ci\b/);
    expect(commands).toMatch(/node scripts\/build\.mjs\b/);
    expect(commands).toMatch(/npm prune --omit=dev/);
  });

  it('takes its bases as build arguments, Node.js 24 LTS unless told otherwise', async () => {
    const text = await readFile(join(repoRoot, `deploy/docker/${app}.Dockerfile`), 'utf8');
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
    expect(text).toMatch(/^ARG NODE_BUILD_IMAGE=node:24-slim$/m);
    expect(text).not.toMatch(/node:20/);
  });

  it('runs the NODE_IMAGE base as a numeric non-root user, with only package.json, node_modules and the bundle', () => {
    const final = stages.at(-1)!;
    expect(final[0]).toMatch(/^FROM \$\{NODE_IMAGE\}$/);
    // No RUN in the final stage: the runtime base needs no shell tools.
    expect(final.filter((line) => line.startsWith('RUN'))).toEqual([]);
    const user = final.find((line) => line.startsWith('USER'));
    const [uid, gid] = (user ?? '').replace('USER', '').trim().split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    expect(final.indexOf(user!)).toBeGreaterThan(final.findIndex((line) => line.startsWith('RUN') || line.startsWith('COPY')));
    const copied = final.filter((line) => line.startsWith('COPY')).map((line) => line.split(/\s+/).at(-2));
    // The reconciler also carries the pinned renderers (kustomize, helm, sops) from the tools stage.
    const renderers = app === 'reconciler' ? ['/out/', '/out/cache'] : [];
    expect(copied).toEqual([`/src/apps/${app}/package.json`, '/src/node_modules', `/src/apps/${app}/dist`, ...renderers]);
    expect(final.find((line) => line.startsWith('ENTRYPOINT'))).toContain('/app/dist/main.js');
    expect(final).toContain(`EXPOSE ${port}`);
  });

  it('keeps node_modules, dist and the Git history out of the build context', async () => {
    const ignored = (await readFile(join(repoRoot, `deploy/docker/${app}.Dockerfile.dockerignore`), 'utf8')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });

  it('has a package.json that makes dist/main.js an ES module', async () => {
    expect(JSON.parse(await readFile(join(repoRoot, `apps/${app}/package.json`), 'utf8'))).toHaveProperty('type', 'module');
  });
});

describe('the bundles the images run', () => {
  const outdir = `test-artifacts/deploy-bundles-${suffix}`;
  const namespace = `tm-bundle-${suffix}`;
  const prefix = `tm-bundle-${suffix}`;
  let scratch = '';
  let gitServer: Started | undefined;
  let gitUrl = '';
  let account: ServiceAccountCredentials | undefined;

  beforeAll(async () => {
    await run(process.execPath, ['scripts/build.mjs', '--outdir', outdir], repoRoot);
    await writeFile(join(repoRoot, outdir, 'package.json'), '{ "type": "module" }\n');
    // A sample repository of this test's own: a namespace and a ConfigMap the reconciler must apply.
    scratch = await mkdtemp(join(tmpdir(), 'tidemark-bundles-'));
    await mkdir(join(scratch, 'sample'));
    await writeFile(join(scratch, 'sample', 'objects.yaml'), [
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-git\n  namespace: ${namespace}\ndata:\n  greeting: hello from the sample Git server\n`,
    ].join('---\n'));
    // The sample WebApp, moved to this namespace: CRD install, CR, status, owned Deployment, Service, ServiceAccount, ConfigMap.
    const webapp = await readFile(join(repoRoot, 'examples/sample-repo/webapp/shop.yaml'), 'utf8');
    await writeFile(join(scratch, 'sample', 'webapp.yaml'), webapp.replace(/namespace: \S+/, `namespace: ${namespace}`));
    const port = await freePort();
    gitServer = startProgram(join(repoRoot, 'deploy/docker/git-server.mjs'), { GIT_SERVER_PORT: String(port), GIT_SERVER_HOST: '127.0.0.1', SAMPLE_DIR: join(scratch, 'sample'), HOME: scratch });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, gitServer);
    gitUrl = `http://127.0.0.1:${port}/sample.git`;
    account = await reconcilerServiceAccount();
  }, 300_000);

  afterAll(async () => {
    await gitServer?.stop();
    await rm(join(repoRoot, outdir), { recursive: true, force: true });
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('the sample Git server serves the repository and refuses pushes', async () => {
    const clone = join(scratch, 'clone');
    await run('git', ['clone', '--quiet', gitUrl, clone], scratch);
    expect(await readFile(join(clone, 'objects.yaml'), 'utf8')).toContain('from-git');
    await expect(run('git', ['-C', clone, 'push', 'origin', 'HEAD:refs/heads/other'], scratch)).rejects.toThrow(/403/);
  });

  it('the reconciler bundle, as the base\'s ServiceAccount, serves health, reconciles the repository and drains within the grace period on SIGTERM', async () => {
    const httpPort = await freePort();
    const kubeconfig = await serviceAccountKubeconfig(scratch, account!);
    const config = join(scratch, 'tidemark.yaml');
    await writeFile(config, [
      `cacheDir: ${join(scratch, 'cache')}`,
      `http: {port: ${httpPort}, host: 127.0.0.1}`,
      `redis: {prefix: ${prefix}}`,
      `sources: [{name: sample, url: "${gitUrl}", ref: {branch: main}, intervalMs: 5000}]`,
      `clusters: [{name: rig, kubeconfig: "${kubeconfig}"}]`,
    ].join('\n'));
    const reconciler = startProgram(join(repoRoot, outdir, 'reconciler/main.js'), { TIDEMARK_CONFIG: config, TIDEMARK_REDIS_URL: inject('redisUrl'), TIDEMARK_ROLE: 'all', HOME: scratch }, await entrypointFlags('reconciler'));
    try {
      await waitForHttp(`http://127.0.0.1:${httpPort}/healthz`, reconciler);
      await waitForHttp(`http://127.0.0.1:${httpPort}/readyz`, reconciler);
      await expect.poll(() => kubectl(inject('kubeconfigPath'), ['get', 'configmap', 'from-git', '-n', namespace, '-o', 'jsonpath={.data.greeting}']).catch(() => ''), { timeout: 60_000, interval: 500 })
        .toBe('hello from the sample Git server');
      const admin = inject('kubeconfigPath');
      await expect.poll(() => kubectl(admin, ['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status.observedGeneration}']).catch(() => ''), { timeout: 60_000, interval: 500 }).toBe('1');
      expect(await kubectl(admin, ['get', 'deployment', 'shop', '-n', namespace, '-o', 'name'])).toContain('deployment.apps/shop');
      expect(reconciler.output()).not.toMatch(/forbidden/i);
    } finally {
      // The manifests give it terminationGracePeriodSeconds: 60; past it the kubelet kills it, and
      // so does stop(): exit code 0 means it drained and exited by itself within the grace period.
      const exit = await reconciler.stop(60_000);
      expect(exit.code, `exit code ${exit.code} after ${exit.ms} ms; output:\n${reconciler.output()}`).toBe(0);
    }
  }, 180_000);

  it.skipIf(!canUnshareMounts)('in-cluster mode (the base\'s default cluster) with the ServiceAccount files where Kubernetes mounts them (needs root to unshare a mount namespace; skipped otherwise)', async () => {
    // What the kubelet gives a pod: token, ca.crt and namespace under /var/run/secrets, and the
    // API server's address in KUBERNETES_SERVICE_HOST/PORT. A private mount namespace holds them.
    const files = join(scratch, 'serviceaccount');
    await mkdir(files, { recursive: true });
    await writeFile(join(files, 'token'), account!.token);
    await writeFile(join(files, 'ca.crt'), Buffer.from(account!.caData, 'base64'));
    await writeFile(join(files, 'namespace'), account!.namespace);
    // A repository of its own, so what appears in the cluster can only come from this run.
    const sample = join(scratch, 'in-cluster-sample');
    await mkdir(sample, { recursive: true });
    await writeFile(join(sample, 'objects.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-cluster\n  namespace: ${namespace}\ndata:\n  via: in-cluster config\n`);
    const gitPort = await freePort();
    const git = startProgram(join(repoRoot, 'deploy/docker/git-server.mjs'), { GIT_SERVER_PORT: String(gitPort), GIT_SERVER_HOST: '127.0.0.1', SAMPLE_DIR: sample, HOME: scratch });
    await waitForHttp(`http://127.0.0.1:${gitPort}/healthz`, git);
    const httpPort = await freePort();
    const config = join(scratch, 'in-cluster.yaml');
    await writeFile(config, [
      `cacheDir: ${join(scratch, 'in-cluster-cache')}`,
      `http: {port: ${httpPort}, host: 127.0.0.1}`,
      `redis: {prefix: ${prefix}-in-cluster}`,
      `sources: [{name: sample, url: "http://127.0.0.1:${gitPort}/sample.git", ref: {branch: main}, intervalMs: 60000}]`,
      'clusters: [{name: in-cluster, inCluster: true}]',
    ].join('\n'));
    const mountDir = '/var/run/secrets/kubernetes.io/serviceaccount';
    const script = `mount -t tmpfs tmpfs /run && mkdir -p ${mountDir} && cp "$1"/* ${mountDir}/ && shift && exec "$@"`;
    const server = new URL(account!.server);
    const reconciler = startCommand('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', files, process.execPath, join(repoRoot, outdir, 'reconciler/main.js')], {
      TIDEMARK_CONFIG: config, TIDEMARK_REDIS_URL: inject('redisUrl'), HOME: scratch,
      KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port,
    });
    try {
      await waitForHttp(`http://127.0.0.1:${httpPort}/readyz`, reconciler);
      await expect.poll(() => kubectl(inject('kubeconfigPath'), ['get', 'configmap', 'in-cluster', '-n', namespace, '-o', 'jsonpath={.data.via}']).catch(() => ''), { timeout: 60_000, interval: 500 }).toBe('in-cluster config');
      // A request the base's RBAC does not allow shows as Forbidden, or as a watch answered 403.
      expect(reconciler.output()).not.toMatch(/forbidden|unauthorized|answered 40[13]/i);
      expect(reconciler.output()).toContain('"clusters":["in-cluster"]');
    } finally {
      await git.stop();
      const exit = await reconciler.stop();
      expect(exit.code, `exit code ${exit.code}; output:\n${reconciler.output()}`).toBe(0);
    }
  }, 180_000);

  it('run from the image\'s layout: production-only node_modules (npm ci --omit=dev) and the bundle, nothing else', async () => {
    // The final stage of the Dockerfiles, without Docker: /app/package.json, /app/node_modules, /app/dist.
    const image = join(scratch, 'image');
    const manifests = ['package.json', 'package-lock.json', ...(await workspaceManifests())];
    for (const file of manifests) {
      await mkdir(join(image, 'src', file, '..'), { recursive: true });
      await writeFile(join(image, 'src', file), await readFile(join(repoRoot, file)));
    }
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], join(image, 'src'));
    await rm(join(image, 'src/node_modules/@tidemark'), { recursive: true, force: true });
    for (const app of ['reconciler', 'dashboard']) {
      await mkdir(join(image, app, 'dist'), { recursive: true });
      await writeFile(join(image, app, 'package.json'), await readFile(join(repoRoot, `apps/${app}/package.json`)));
      await writeFile(join(image, app, 'dist/main.js'), await readFile(join(repoRoot, outdir, app, 'main.js')));
      await run('ln', ['-s', '../src/node_modules', join(image, app, 'node_modules')], image);
    }
    const httpPort = await freePort();
    const config = join(scratch, 'image-tidemark.yaml');
    await writeFile(config, [
      `cacheDir: ${join(scratch, 'image-cache')}`,
      `http: {port: ${httpPort}, host: 127.0.0.1}`,
      `redis: {prefix: ${prefix}-image}`,
      `sources: [{name: sample, url: "${gitUrl}", ref: {branch: main}, intervalMs: 60000}]`,
      `clusters: [{name: rig, kubeconfig: "${inject('kubeconfigPath')}"}]`,
    ].join('\n'));
    const reconciler = startProgram(join(image, 'reconciler/dist/main.js'), { TIDEMARK_CONFIG: config, TIDEMARK_REDIS_URL: inject('redisUrl'), HOME: scratch });
    const dashboardPort = await freePort();
    const dashboard = startProgram(join(image, 'dashboard/dist/main.js'), {
      TIDEMARK_REDIS_URL: inject('redisUrl'), TIDEMARK_REDIS_PREFIX: `${prefix}-image`, TIDEMARK_DASHBOARD_HOST: '127.0.0.1', TIDEMARK_DASHBOARD_PORT: String(dashboardPort),
      TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'admin', role: 'viewer', token: 'a-token-of-twenty-characters' }]), TIDEMARK_DASHBOARD_SESSION_SECRET: 's'.repeat(32),
    });
    try {
      await waitForHttp(`http://127.0.0.1:${httpPort}/readyz`, reconciler);
      await waitForHttp(`http://127.0.0.1:${dashboardPort}/healthz`, dashboard);
    } finally {
      const [reconcilerExit, dashboardExit] = await Promise.all([reconciler.stop(), dashboard.stop()]);
      expect(reconcilerExit.code, `reconciler exit code ${reconcilerExit.code}; output:\n${reconciler.output()}`).toBe(0);
      expect(dashboardExit.code, `dashboard exit code ${dashboardExit.code}; output:\n${dashboard.output()}`).toBe(0);
    }
  }, 300_000);

  it('the dashboard bundle serves /healthz from the same Redis and stops on SIGTERM', async () => {
    const port = await freePort();
    const dashboard = startProgram(join(repoRoot, outdir, 'dashboard/main.js'), {
      TIDEMARK_REDIS_URL: inject('redisUrl'),
      TIDEMARK_REDIS_PREFIX: prefix,
      TIDEMARK_DASHBOARD_HOST: '127.0.0.1',
      TIDEMARK_DASHBOARD_PORT: String(port),
      TIDEMARK_DASHBOARD_CLUSTERS: 'rig',
      TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'admin', role: 'operator', token: 'a-token-of-twenty-characters' }]),
      TIDEMARK_DASHBOARD_SESSION_SECRET: 's'.repeat(32),
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, dashboard);
    } finally {
      // The dashboard's terminationGracePeriodSeconds is 30: killed past it, so exit code 0 means it stopped in time.
      const exit = await dashboard.stop(30_000);
      expect(exit.code, `exit code ${exit.code} after ${exit.ms} ms; output:\n${dashboard.output()}`).toBe(0);
    }
  }, 120_000);
});
