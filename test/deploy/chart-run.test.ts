// The Helm chart as installed: its release, rendered by Helm's own engine (test/helm-render) with the
// reconciler image pinned by the digest scripts/build-images recorded, is applied to a control plane
// of its own, with controllers, a scheduler and KWOK nodes. KWOK nodes only pretend to run the Pod, so this suite runs
// that Pod's reconciler container for real under podman: the Pod as the API server returns it
// (admission's ServiceAccount volume included) becomes the `podman run` (libs/testing
// containerRunOf: env, args, mounts, user, groups, capabilities, read-only root), its volumes' files
// are what a kubelet would lay out (the ConfigMap, the absent optional Secret, a token of the Pod's
// ServiceAccount bound to the Pod, the cluster's CA), and its probes are polled. Nothing of the
// container spec is written here by hand. Host network: the API server, Redis and the Git server are
// on loopback, so the chart's ports are set to free ones.
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { containerRunOf, freePort, kubectl, startControlPlane, volumeFilesOf, type ContainerRun, type ControlPlane, type PodObjects, type RunnablePod } from '@tidemark/testing';
import { applyForReal } from './api-server';
import { buildImages, podman, useProjectContainers, type BuiltImage } from './containers';
import { startCommand, startProgram, waitForHttp, type Started } from './processes';
import { renderHelm, repoRoot } from './render';

const suffix = randomUUID().slice(0, 8);
const release = `tmc-${suffix}`;
const namespace = `tm-chart-${suffix}`;
const appNamespace = `tm-chart-app-${suffix}`;
const containerName = `tm-chart-reconciler-${suffix}`;

let image: BuiltImage;
let plane: ControlPlane | undefined;
let scratch = '';
let gitServer: Started | undefined;
let reconciler: Started | undefined;
let run: ContainerRun;
let pod: RunnablePod & { metadata: { uid: string } };

/** get reads objects as JSON from the chart's control plane. */
async function get<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl(plane!.kubeconfigPath, ['get', ...args, '-o', 'json'])) as T;
}

/** objectsOf gathers what the Pod may refer to, as a kubelet would fetch it: its namespace's ConfigMaps and Secrets, and a token of its ServiceAccount bound to it. */
async function objectsOf(running: typeof pod): Promise<PodObjects> {
  const dataOf = async (kind: string) => {
    const list = await get<{ items: { metadata: { name: string }; data?: Record<string, string> }[] }>([kind, '-n', namespace]);
    return Object.fromEntries(list.items.map((item) => [item.metadata.name, item.data ?? {}]));
  };
  const serviceAccount = running.spec.serviceAccountName ?? 'default';
  const token = (await kubectl(plane!.kubeconfigPath, ['create', 'token', serviceAccount, '-n', namespace, '--duration', '1h', '--bound-object-kind', 'Pod', '--bound-object-name', running.metadata.name, '--bound-object-uid', running.metadata.uid])).trim();
  return { configMaps: await dataOf('configmaps'), secrets: await dataOf('secrets'), serviceAccountToken: token };
}

/** layOut writes each 'files' volume into a folder of its own, makes each emptyDir an empty folder anyone may write (as a kubelet does), and returns the folders by volume name. */
async function layOut(volumes: ReturnType<typeof volumeFilesOf>): Promise<Record<string, string>> {
  const folders: Record<string, string> = {};
  for (const [name, volume] of Object.entries(volumes)) {
    if (volume.kind === 'tmpfs') continue;
    const folder = join(scratch, 'volumes', name);
    await mkdir(folder, { recursive: true });
    await chmod(folder, volume.kind === 'empty' ? 0o777 : 0o755);
    folders[name] = folder;
    if (volume.kind === 'empty') continue;
    for (const [path, content] of Object.entries(volume.files)) {
      await mkdir(dirname(join(folder, path)), { recursive: true, mode: 0o755 });
      await writeFile(join(folder, path), content, { mode: 0o644 });
    }
  }
  return folders;
}

beforeAll(async () => {
  useProjectContainers();
  let built: Record<string, BuiltImage>;
  [built, plane] = await Promise.all([buildImages(['reconciler']), startControlPlane({ name: `chart-${suffix}`, controllers: true })]);
  image = built.reconciler!;
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-chart-run-'));
  // The sample repository: a namespace, a ConfigMap, and the sample WebApp.
  await mkdir(join(scratch, 'sample'));
  await writeFile(join(scratch, 'sample', 'objects.yaml'), [
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${appNamespace}\n`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-chart\n  namespace: ${appNamespace}\ndata:\n  via: the chart's reconciler Pod\n`,
  ].join('---\n'));
  const webapp = await readFile(join(repoRoot, 'examples/sample-repo/webapp/shop.yaml'), 'utf8');
  await writeFile(join(scratch, 'sample', 'webapp.yaml'), webapp.replace(/namespace: \S+/, `namespace: ${appNamespace}`));
  const gitPort = await freePort();
  gitServer = startProgram(join(repoRoot, 'deploy/docker/git-server.mjs'), { GIT_SERVER_PORT: String(gitPort), GIT_SERVER_HOST: '127.0.0.1', SAMPLE_DIR: join(scratch, 'sample'), HOME: scratch });
  await waitForHttp(`http://127.0.0.1:${gitPort}/healthz`, gitServer);

  // The values a user would give: the image by digest, an external Redis, one source, free ports.
  const values = {
    image: { reconciler: { digest: image.digest } },
    redis: { enabled: false, externalUrl: inject('redisUrl') },
    dashboard: { enabled: false },
    reconciler: { replicas: 1, httpPort: await freePort(), conversionPort: await freePort() },
    config: {
      sources: [{ name: 'sample', url: `http://127.0.0.1:${gitPort}/sample.git`, ref: { branch: 'main' }, intervalMs: 5000 }],
      clusters: [{ name: 'in-cluster', inCluster: true }],
      redis: { prefix: `tm-chart-${suffix}` },
    },
  };
  await writeFile(join(scratch, 'values.yaml'), stringify(values));
  // `helm install` itself refuses the rig's API server (its gitVersion is a placeholder, below the
  // chart's kubeVersion), so Helm's own engine renders the release for the real major.minor, and it is applied.
  const version = JSON.parse(await kubectl(plane.kubeconfigPath, ['get', '--raw', '/version'])) as { major: string; minor: string };
  const objects = await renderHelm({ name: release, namespace, kubeVersion: `v${version.major}.${version.minor.replace(/\D+$/, '')}.0`, values: [join(scratch, 'values.yaml')], set: ['namespace.create=true'] });
  await applyForReal(plane.kubeconfigPath, objects.filter((object) => object.kind === 'Namespace'));
  await applyForReal(plane.kubeconfigPath, objects.filter((object) => object.kind !== 'Namespace'));
}, 3_000_000);

afterAll(async () => {
  await reconciler?.stop(60_000);
  await podman(['rm', '--force', '--ignore', containerName]).catch(() => undefined);
  await gitServer?.stop();
  await plane?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the Helm chart\'s reconciler Pod, its container run under podman', () => {
  it('is scheduled onto a simulated node with the image pinned by the built digest', async () => {
    const selector = `app.kubernetes.io/instance=${release},app.kubernetes.io/component=reconciler`;
    await expect.poll(async () => (await get<{ items: { spec: { nodeName?: string } }[] }>(['pods', '-n', namespace, '-l', selector])).items[0]?.spec.nodeName ?? '', { timeout: 120_000, interval: 1_000 }).not.toBe('');
    pod = (await get<{ items: (typeof pod)[] }>(['pods', '-n', namespace, '-l', selector])).items[0]!;
    expect(pod.spec.containers.find((container) => container.name === 'reconciler')?.image).toBe(`tidemark/reconciler@${image.digest}`);
  }, 180_000);

  it('reconciles the sample repository to Ready in its own cluster, as the chart\'s ServiceAccount, read-only and as 10001', async () => {
    expect(pod, 'the Pod exists (previous test)').toBeDefined();
    const objects = await objectsOf(pod);
    const server = new URL(plane!.server);
    run = containerRunOf(pod, 'reconciler', objects, { name: containerName, volumeFolders: await layOut(volumeFilesOf(pod, objects)), apiServer: { host: server.hostname, port: Number(server.port) } });
    reconciler = startCommand('podman', ['run', ...run.args], {
      CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? '', CONTAINERS_STORAGE_CONF: process.env.CONTAINERS_STORAGE_CONF ?? '', HOME: process.env.HOME ?? '/root', ...run.secretEnv,
    });
    expect(run.probes.startup && run.probes.readiness, 'the chart gives the reconciler startup and readiness probes').toBeTruthy();
    await waitForHttp(run.probes.startup!, reconciler, 200, 120_000);
    await waitForHttp(run.probes.readiness!, reconciler, 200, 120_000);

    const admin = plane!.kubeconfigPath;
    await expect.poll(() => kubectl(admin, ['get', 'configmap', 'from-chart', '-n', appNamespace, '-o', 'jsonpath={.data.via}']).catch(() => ''), { timeout: 120_000, interval: 1_000 }).toBe('the chart\'s reconciler Pod');
    // Ready: the WebApp's Deployment is available (its pods run on the simulated nodes).
    await expect.poll(() => kubectl(admin, ['get', 'webapp', 'shop', '-n', appNamespace, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']).catch(() => ''), { timeout: 180_000, interval: 1_000 }).toBe('True');
    expect(reconciler.output()).not.toMatch(/forbidden|unauthorized|answered 40[13]/i);

    const inContainer = (code: string) => podman(['exec', containerName, 'node', '-e', code]);
    expect(await inContainer('process.stdout.write(`${process.getuid()}:${process.getgid()}`)')).toBe('10001:10001');
    expect(await inContainer('try { require("fs").writeFileSync("/app/probe", "x"); process.stdout.write("written") } catch (error) { process.stdout.write(error.code) }')).toBe('EROFS');
    // Only the chart's emptyDirs are writable: /tmp is one, /run (which podman would make a tmpfs) is not.
    expect(await inContainer('require("fs").writeFileSync("/tmp/probe", "x"); try { require("fs").writeFileSync("/run/probe", "x"); process.stdout.write("written") } catch (error) { process.stdout.write(error.code) }')).toMatch(/EROFS|EACCES|ENOENT/);
  }, 600_000);

  it('drains and exits 0 on SIGTERM within the chart\'s grace period', async () => {
    expect(reconciler, 'the container runs (previous test)').toBeDefined();
    const exit = await reconciler!.stop((pod.spec.terminationGracePeriodSeconds ?? 30) * 1000);
    reconciler = undefined;
    expect(exit.code, `exit code ${exit.code} after ${exit.ms} ms`).toBe(0);
  }, 120_000);
});
