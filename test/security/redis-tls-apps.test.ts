// TLS to Redis on every topology (issue 40, item 4): the reconciler bundle and the dashboard bundle,
// as the image runs them, against Debian's redis-server serving TLS only, with a CA made at test
// time: a single node (rediss://), a Sentinel group (TLS to the sentinels and to the data nodes,
// replication and the sentinels' own links too, client certificates required) and a Redis Cluster
// (TLS on every node and the cluster bus). A push converges and the dashboard lists it Ready. Then
// what a user gets wrong is refused at start-up with an error that says what to check and holds no
// password: a CA that did not sign the sentinels, a server name no certificate carries, a data node
// whose certificate does not name the address the sentinels hand out.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRedisTls, probeRedis, RedisTlsError, type RedisEndpoint } from '@tidemark/queue';
import {
  buildAppBundles, freePort, killAppProcess, kubectl, makeTestCa, startAppProcess, startGitServer, startRedis, startRedisCluster, startRedisSentinel,
  type AppBundles, type AppProcess, type GitServer, type IssuedCertificate, type RedisAuth, type RedisHostPort, type TestCa,
} from '@tidemark/testing';
import { waitFor } from '../queue/helpers';
import { writeConfigMaps, writeReconcilerConfig } from '../queue/reconciler-apps';

const id = randomUUID().slice(0, 8);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const kubeconfigPath = inject('kubeconfigPath');
const target = 'tls';
const token = `viewer-${randomUUID()}`;
const login: RedisAuth = { username: 'tidemark', password: `pw-${randomUUID()}`, sentinelPassword: `sp-${randomUUID()}` };
// Passwords reach the apps from the environment, never in the config file.
const secrets = { TIDEMARK_TEST_REDIS_PASSWORD: login.password, TIDEMARK_TEST_SENTINEL_PASSWORD: login.sentinelPassword! };
const objects = 3;

let ca: TestCa;
let otherCa: TestCa;
let serverCert: IssuedCertificate;
let clientCert: IssuedCertificate;
let bundles: AppBundles;
let git: GitServer;
let workDir: string;

beforeAll(async () => {
  [ca, otherCa] = await Promise.all([makeTestCa(), makeTestCa('Another CA')]);
  serverCert = await ca.issue('redis', ['127.0.0.1', 'redis.tidemark.test']);
  clientCert = await ca.issue('tidemark', ['tidemark-client']);
  [bundles, git] = await Promise.all([buildAppBundles(repoRoot, `test-artifacts/redis-tls-apps-${id}`), startGitServer()]);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-redis-tls-apps-'));
});

afterAll(async () => {
  await git?.stop();
  await Promise.all([ca?.remove(), otherCa?.remove(), workDir ? rm(workDir, { recursive: true, force: true }) : undefined]);
  await bundles?.remove();
});

/** Topology is one TLS Redis, and how each app is pointed at it. */
interface Topology {
  /** The reconciler's `redis` section, TLS files relative to the config file's folder. */
  reconcilerRedis: Record<string, unknown>;
  /** The reconciler's environment beside its file (a URL with its password). */
  reconcilerEnv?: Record<string, string>;
  /** The dashboard's environment for the same Redis. */
  dashboardEnv: Record<string, string>;
  stop(): Promise<void>;
}

const nodeList = (nodes: readonly RedisHostPort[]) => nodes.map((node) => `${node.host}:${node.port}`);
const server = () => ({ certFile: serverCert.certFile, keyFile: serverCert.keyFile, caFile: ca.caFile });

/** tlsFolder copies the CA (and the client certificate) beside the config, as a mounted Secret would be. */
async function tlsFolder(name: string): Promise<void> {
  const folder = join(workDir, `tls-${name}`);
  await mkdir(folder, { recursive: true });
  await Promise.all([copyFile(ca.caFile, join(folder, 'ca.crt')), copyFile(clientCert.certFile, join(folder, 'tls.crt')), copyFile(clientCert.keyFile, join(folder, 'tls.key'))]);
}

/** A single redis-server, TLS only, reached by a rediss:// URL whose password comes from the environment. */
async function onSingleNode(prefix: string): Promise<Topology> {
  const redis = await startRedis({ url: '', tls: server(), args: ['--requirepass', login.password] });
  const url = redis.url.replace('rediss://', `rediss://:${login.password}@`);
  await tlsFolder('single');
  return {
    // The file names its CA; the URL with its password comes from the environment (TIDEMARK_REDIS_URL).
    reconcilerRedis: { prefix, tls: { caFile: 'tls-single/ca.crt', serverName: 'redis.tidemark.test' } },
    reconcilerEnv: { TIDEMARK_REDIS_URL: url },
    dashboardEnv: { TIDEMARK_REDIS_URL: url, TIDEMARK_REDIS_TLS_CA_FILE: ca.caFile, TIDEMARK_REDIS_TLS_SERVER_NAME: 'redis.tidemark.test' },
    stop: () => redis.stop(),
  };
}

/** A Sentinel group that requires a client certificate of every client, the sentinels included. */
async function onSentinel(prefix: string): Promise<Topology> {
  const sentinel = await startRedisSentinel('tidemark', login, { ...server(), authClients: 'yes' });
  const nodes = nodeList(sentinel.sentinels);
  await tlsFolder('sentinel');
  return {
    reconcilerRedis: {
      sentinel: { name: sentinel.name, nodes, username: login.username, password: { env: 'TIDEMARK_TEST_REDIS_PASSWORD' }, sentinelPassword: { env: 'TIDEMARK_TEST_SENTINEL_PASSWORD' } },
      prefix, tls: { caFile: 'tls-sentinel/ca.crt', certFile: 'tls-sentinel/tls.crt', keyFile: 'tls-sentinel/tls.key' },
    },
    dashboardEnv: {
      TIDEMARK_REDIS_SENTINELS: nodes.join(','), TIDEMARK_REDIS_SENTINEL_NAME: sentinel.name,
      TIDEMARK_REDIS_USERNAME: login.username, TIDEMARK_REDIS_PASSWORD: login.password, TIDEMARK_REDIS_SENTINEL_PASSWORD: login.sentinelPassword!,
      TIDEMARK_REDIS_TLS_CA_FILE: ca.caFile, TIDEMARK_REDIS_TLS_CERT_FILE: clientCert.certFile, TIDEMARK_REDIS_TLS_KEY_FILE: clientCert.keyFile,
    },
    stop: () => sentinel.stop(),
  };
}

/** A Redis Cluster of three primaries, TLS on every node and on the cluster bus; the CA comes from the environment. */
async function onRedisCluster(prefix: string): Promise<Topology> {
  const cluster = await startRedisCluster({ masters: 3, auth: login, tls: server() });
  const nodes = nodeList(cluster.nodes);
  return {
    reconcilerRedis: { cluster: { nodes, username: login.username, password: { env: 'TIDEMARK_TEST_REDIS_PASSWORD' } }, prefix },
    reconcilerEnv: { TIDEMARK_REDIS_TLS_CA_FILE: ca.caFile },
    dashboardEnv: { TIDEMARK_REDIS_CLUSTER_NODES: nodes.join(','), TIDEMARK_REDIS_USERNAME: login.username, TIDEMARK_REDIS_PASSWORD: login.password, TIDEMARK_REDIS_TLS_CA_FILE: ca.caFile },
    stop: () => cluster.stop(),
  };
}

/** ObjectsPage is what GET /api/objects answers, as far as this suite reads it. */
interface ObjectsPage {
  total: number;
  rows: { name: string; cells: Record<string, { state: string }> }[];
}

describe.each([
  ['a single node (rediss://)', 'single', onSingleNode],
  ['a Sentinel group (client certificates required)', 'sentinel', onSentinel],
  ['a Redis Cluster', 'cluster', onRedisCluster],
] as const)('the reconciler and the dashboard over TLS on %s', (_, name, start) => {
  const namespace = `redis-tls-${name}-${id}`;
  const prefix = `tls-${name}-${id}`;
  let topology: Topology;
  const apps: AppProcess[] = [];
  const outputs = () => apps.map((app) => `--- ${app.name}\n${app.output}`).join('\n');

  beforeAll(async () => {
    topology = await start(prefix);
    await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  });

  afterAll(async () => {
    await Promise.all(apps.map(killAppProcess));
    await topology?.stop();
    await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  });

  it('a push converges, and the dashboard lists every object Ready', async () => {
    const repoUrl = await git.createRepository(`tls-${name}`);
    const repo = await git.workingCopy(`tls-${name}`);
    const configPath = await writeReconcilerConfig({ redis: topology.reconcilerRedis, workDir, name, source: `tls-${name}`, repoUrl, cluster: target, kubeconfigPath });
    const reconciler = startAppProcess({
      name: 'reconciler', bundle: bundles.reconciler, startedLine: 'tidemark reconciler started',
      env: { ...secrets, ...topology.reconcilerEnv, TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'info' },
    });
    const port = await freePort();
    const dashboard = startAppProcess({
      name: 'dashboard', bundle: bundles.dashboard,
      env: {
        ...topology.dashboardEnv, TIDEMARK_REDIS_PREFIX: prefix, TIDEMARK_DASHBOARD_HOST: '127.0.0.1', TIDEMARK_DASHBOARD_PORT: String(port),
        TIDEMARK_DASHBOARD_CLUSTERS: target, TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'viewer', role: 'viewer', token }]),
      },
    });
    apps.push(reconciler, dashboard);
    const base = new URL(`http://127.0.0.1:${port}/`);
    const answers = (path: string) => fetch(new URL(path, base), { headers: { authorization: `Bearer ${token}` } }).then((response) => response.ok, () => false);
    await waitFor(async () => reconciler.started && (await answers('/readyz')), 180_000, `the reconciler and the dashboard to start:\n${outputs()}`);

    await writeConfigMaps(repo, namespace, Array.from({ length: objects }, (_, index) => index));
    await repo.commitAndPush(`${objects} ConfigMaps`);
    const readyOnDashboard = async () => {
      const response = await fetch(new URL(`/api/objects?namespace=${namespace}`, base), { headers: { authorization: `Bearer ${token}` } });
      if (!response.ok) return false;
      const page = await response.json() as ObjectsPage;
      return page.total === objects && page.rows.every((row) => row.cells[target]?.state === 'Ready');
    };
    await waitFor(readyOnDashboard, 180_000, `the dashboard to list all ${objects} ConfigMaps Ready:\n${outputs()}`);
    const live = JSON.parse(await kubectl(kubeconfigPath, ['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'json'])) as { items: unknown[] };
    expect(live.items).toHaveLength(objects);

    for (const app of [reconciler, dashboard]) {
      expect(app.child.exitCode, `${app.name} exit code:\n${app.output}`).toBeNull();
      for (const secret of Object.values(secrets)) expect(app.output).not.toContain(secret);
    }
  }, 400_000);
});

describe('refusals on a Sentinel group', () => {
  it('a CA that did not sign the sentinels, and a server name they do not carry, stop the reconciler at start-up', async () => {
    const sentinel = await startRedisSentinel('tidemark', login, server());
    const nodes = nodeList(sentinel.sentinels);
    const started: AppProcess[] = [];
    try {
      const cases = [
        { name: 'wrong-ca', tls: { caFile: otherCa.caFile }, says: `not signed by a CA in the CA file ${otherCa.caFile}` },
        { name: 'wrong-name', tls: { caFile: ca.caFile, serverName: 'elsewhere.tidemark.test' }, says: 'does not carry the name connected to' },
      ];
      for (const refused of cases) {
        const redis = { sentinel: { name: sentinel.name, nodes, username: login.username, password: { env: 'TIDEMARK_TEST_REDIS_PASSWORD' }, sentinelPassword: { env: 'TIDEMARK_TEST_SENTINEL_PASSWORD' } }, prefix: `tls-${refused.name}-${id}`, tls: refused.tls };
        const configPath = await writeReconcilerConfig({ redis, workDir, name: refused.name, source: refused.name, repoUrl: 'http://127.0.0.1:9/none.git', cluster: target, kubeconfigPath });
        const reconciler = startAppProcess({ name: refused.name, bundle: bundles.reconciler, env: { ...secrets, TIDEMARK_CONFIG: configPath } });
        started.push(reconciler);
        const exited = await Promise.race([reconciler.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 60_000))]);
        expect(exited, `${refused.name}: the reconciler exits instead of reconnecting forever:\n${reconciler.output}`).toBe(true);
        expect(reconciler.child.exitCode, reconciler.output).toBe(1);
        expect(reconciler.output).toContain(`Redis at sentinel tidemark via ${nodes.join(',')} (sentinel ${nodes[0]})`);
        expect(reconciler.output).toContain(refused.says);
        for (const secret of Object.values(secrets)) expect(reconciler.output).not.toContain(secret);
      }
    } finally {
      await Promise.all(started.map(killAppProcess));
      await sentinel.stop();
    }
  }, 300_000);

  it('a data node whose certificate does not name the address the sentinels hand out is refused, named as the primary', async () => {
    const dataCert = await ca.issue('redis-data', ['redis-data.tidemark.test']);
    const sentinel = await startRedisSentinel('tidemark', undefined, { ...server(), dataNodes: dataCert });
    try {
      const endpoint: RedisEndpoint = { sentinel: { name: sentinel.name, nodes: sentinel.sentinels }, tls: loadRedisTls({ caFile: ca.caFile }, (setting) => setting) };
      const error = await probeRedis(endpoint, { timeoutMs: 10_000 }).then(() => undefined, (failed: unknown) => failed);
      expect(error).toBeInstanceOf(RedisTlsError);
      expect((error as Error).message).toMatch(/\(the primary that sentinel tidemark names\): the server's certificate does not carry the name connected to .*127\.0\.0\.1/);
    } finally {
      await sentinel.stop();
    }
  }, 120_000);
});
