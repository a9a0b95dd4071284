// The reconciler app and the dashboard app, as the image runs them (the bundles), on a Redis
// Cluster with a replica per primary and on a Sentinel group, both logged in as an ACL user as a
// user would configure them. A push of a few hundred ConfigMaps is under way when the primary
// that holds the deployment's keys is SIGKILLed. The failover completes: every object converges
// on the cluster, each is applied once for its revision (the API server's audit log), no job is
// lost or failed, the reconciler never exits, and the dashboard lists every object Ready and its
// live stream delivers a change pushed after the failover.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordKeys } from '@tidemark/contracts';
import { Queue, type ConnectionOptions } from 'bullmq';
import { clusterQueuePrefix, queueNameFor, ReconcileQueues, redisConnectionFor, redisPrefix, type RedisEndpoint } from '@tidemark/queue';
import {
  buildAppBundles, freePort, killAppProcess, markAuditLog, startAppProcess, startControlPlane, startGitServer, startRedisCluster, startRedisSentinel,
  type AppBundles, type AppProcess, type ControlPlane, type GitServer, type RedisAuth, type RedisHostPort,
} from '@tidemark/testing';
import { waitFor } from './helpers';
import { appliedConfigMaps, managedConfigMaps, queueIdle, writeConfigMaps, writeReconcilerConfig } from './reconciler-apps';

const id = randomUUID().slice(0, 8);
const objects = 300;
const target = 'failover';
const token = `viewer-${randomUUID()}`;
const login: RedisAuth = { username: 'tidemark', password: randomUUID(), sentinelPassword: randomUUID() };
// Passwords reach the apps as users give them: from the environment, never in the config file.
const secrets = { TIDEMARK_TEST_REDIS_PASSWORD: login.password, TIDEMARK_TEST_SENTINEL_PASSWORD: login.sentinelPassword! };
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Topology is one way to run Redis with failover, and how each app is pointed at it. */
interface Topology {
  prefix: string;
  /** The reconciler's `redis` section. */
  reconcilerRedis: Record<string, unknown>;
  /** The dashboard's environment for the same Redis. */
  dashboardEnv: Record<string, string>;
  /** The test's own view of it (queue figures). */
  endpoint: RedisEndpoint;
  /** killPrimary SIGKILLs the primary holding the deployment's keys and resolves once a replica has taken over. */
  killPrimary(): Promise<void>;
  /** subscribersOnVictim counts the subscribers of `channel` on the primary killPrimary kills (a cluster's pub/sub is per node). */
  subscribersOnVictim?(channel: string): Promise<number>;
  stop(): Promise<void>;
}

const nodeList = (nodes: readonly RedisHostPort[]) => nodes.map((node) => `${node.host}:${node.port}`);

/**
 * onRedisCluster starts six redis-server processes (three primaries, a replica each) and picks a
 * prefix whose records' tag and target queue's tag are served by one primary, so the kill hits both.
 */
async function onRedisCluster(): Promise<Topology> {
  const cluster = await startRedisCluster({ masters: 3, replicas: 1, auth: login });
  let prefix = '';
  for (let tries = 0; tries < 64 && !prefix; tries += 1) {
    const candidate = `failover-${randomUUID().slice(0, 6)}`;
    const [records, queue] = await Promise.all([cluster.primaryPortOf(redisPrefix({ prefix: candidate, hashTag: true })), cluster.primaryPortOf(clusterQueuePrefix({ prefix: candidate, hashTag: true }, target))]);
    if (records !== undefined && records === queue) prefix = candidate;
  }
  expect(prefix, 'a prefix whose records and queue share a primary').not.toBe('');
  // That primary first: the dashboard's subscriber connects to the first node it is given, so it rides the failover too.
  const victim = (await cluster.primaryPortOf(redisPrefix({ prefix, hashTag: true })))!;
  const nodes = nodeList([...cluster.nodes].sort((a, b) => Number(b.port === victim) - Number(a.port === victim)));
  return {
    prefix,
    reconcilerRedis: { cluster: { nodes, username: login.username, password: { env: 'TIDEMARK_TEST_REDIS_PASSWORD' } }, prefix },
    dashboardEnv: { TIDEMARK_REDIS_CLUSTER_NODES: nodes.join(','), TIDEMARK_REDIS_USERNAME: login.username, TIDEMARK_REDIS_PASSWORD: login.password },
    endpoint: { cluster: { nodes: cluster.nodes, auth: { username: login.username, password: login.password } } },
    killPrimary: () => cluster.killNode(victim),
    subscribersOnVictim: async (channel) => Number((await cluster.command(victim, 'pubsub', 'numsub', channel)).trim().split('\n')[1]),
    stop: () => cluster.stop(),
  };
}

/** onSentinel starts a primary, its replica and a sentinel with a password of its own. */
async function onSentinel(): Promise<Topology> {
  const sentinel = await startRedisSentinel('tidemark', login);
  const prefix = `failover-${randomUUID().slice(0, 6)}`;
  const nodes = nodeList(sentinel.sentinels);
  return {
    prefix,
    reconcilerRedis: {
      sentinel: { name: sentinel.name, nodes, username: login.username, password: { env: 'TIDEMARK_TEST_REDIS_PASSWORD' }, sentinelPassword: { env: 'TIDEMARK_TEST_SENTINEL_PASSWORD' } },
      prefix,
    },
    dashboardEnv: {
      TIDEMARK_REDIS_SENTINELS: nodes.join(','), TIDEMARK_REDIS_SENTINEL_NAME: sentinel.name,
      TIDEMARK_REDIS_USERNAME: login.username, TIDEMARK_REDIS_PASSWORD: login.password, TIDEMARK_REDIS_SENTINEL_PASSWORD: login.sentinelPassword!,
    },
    endpoint: { sentinel: { name: sentinel.name, nodes: sentinel.sentinels, auth: { username: login.username, password: login.password }, sentinelAuth: { password: login.sentinelPassword! } } },
    killPrimary: async () => {
      await sentinel.killPrimary();
      await sentinel.waitForPromotion();
    },
    stop: () => sentinel.stop(),
  };
}

/** EventStream is an open GET /events of the dashboard, its text kept as it arrives. */
interface EventStream {
  text: string;
  close(): void;
}

async function openEventStream(base: URL): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(new URL('/events', base), { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  expect(response.status).toBe(200);
  const stream: EventStream = { text: '', close: () => abort.abort() };
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of response.body! as AsyncIterable<Uint8Array>) stream.text += decoder.decode(chunk, { stream: true });
  })().catch(() => undefined);
  return stream;
}

/** ObjectsPage is what GET /api/objects answers, as far as this suite reads it. */
interface ObjectsPage {
  total: number;
  rows: { name: string; cells: Record<string, { state: string }> }[];
}

let bundles: AppBundles;
let plane: ControlPlane;
let git: GitServer;
let workDir: string;

beforeAll(async () => {
  [bundles, plane, git] = await Promise.all([buildAppBundles(repoRoot, `test-artifacts/app-failover-${id}`), startControlPlane({ name: `failover-${id}`, auditLog: true }), startGitServer()]);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-app-failover-'));
});

afterAll(async () => {
  await Promise.all([git?.stop(), plane?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
  await bundles?.remove();
});

describe.each([
  ['a Redis Cluster with a replica per primary', 'cluster', onRedisCluster],
  ['a Sentinel group (primary, replica, three sentinels)', 'sentinel', onSentinel],
] as const)('the reconciler and the dashboard on %s', (_, name, start) => {
  const namespace = `failover-${name}-${id}`;
  let topology: Topology;
  let queues: ReconcileQueues;
  const apps: AppProcess[] = [];
  const outputs = () => apps.map((app) => `--- ${app.name}\n${app.output}`).join('\n');

  beforeAll(async () => {
    topology = await start();
    await plane.kubectl(['create', 'namespace', namespace]);
    queues = new ReconcileQueues({ connection: redisConnectionFor(topology.endpoint), prefix: topology.prefix, hashTag: 'cluster' in topology.endpoint, clusters: [target] });
    await queues.start();
  });

  afterAll(async () => {
    await Promise.all(apps.map(killAppProcess));
    await queues?.close();
    await topology?.stop();
  });

  it('a primary killed mid-push: every object converges once per revision, no job lost, the dashboard keeps answering', async () => {
    const repoUrl = await git.createRepository(name);
    const repo = await git.workingCopy(name);
    const configPath = await writeReconcilerConfig({ redis: topology.reconcilerRedis, workDir, name, source: name, repoUrl, cluster: target, kubeconfigPath: plane.kubeconfigPath });
    const reconciler = startAppProcess({ name: 'reconciler', bundle: bundles.reconciler, env: { ...secrets, TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
    const port = await freePort();
    const dashboard = startAppProcess({
      name: 'dashboard', bundle: bundles.dashboard,
      env: {
        ...topology.dashboardEnv, TIDEMARK_REDIS_PREFIX: topology.prefix, TIDEMARK_DASHBOARD_HOST: '127.0.0.1', TIDEMARK_DASHBOARD_PORT: String(port),
        TIDEMARK_DASHBOARD_CLUSTERS: target, TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'viewer', role: 'viewer', token }]),
      },
    });
    apps.push(reconciler, dashboard);
    const base = new URL(`http://127.0.0.1:${port}/`);
    const answers = (path: string) => fetch(new URL(path, base), { headers: { authorization: `Bearer ${token}` } }).then((response) => response.ok, () => false);
    await waitFor(async () => reconciler.started && (await answers('/readyz')), 180_000, `the reconciler and the dashboard to start:\n${outputs()}`);
    const events = await openEventStream(base);
    // Only the dashboard listens to the tree channel (the reconciler's watches and notifier listen to status changes too).
    const treeChannel = new RecordKeys(redisPrefix({ prefix: topology.prefix, hashTag: 'cluster' in topology.endpoint })).treeChanges;
    if (topology.subscribersOnVictim) expect(await topology.subscribersOnVictim(treeChannel), 'the dashboard subscribes on the primary to be killed').toBe(1);

    await writeConfigMaps(repo, namespace, Array.from({ length: objects }, (_, index) => index));
    const mark = await markAuditLog(plane.auditLogPath!);
    await repo.commitAndPush(`${objects} ConfigMaps`);
    await waitFor(async () => (await appliedConfigMaps(plane, namespace, mark)).size >= objects / 10, 180_000, `a tenth of the ConfigMaps to be applied:\n${outputs()}`);
    // Mid-run: the kill goes out while ConfigMaps are still to be applied (a quiet machine applies the rest within seconds).
    const appliedBeforeKill = (await appliedConfigMaps(plane, namespace, mark)).size;
    expect(appliedBeforeKill, 'ConfigMaps applied when the primary was killed').toBeLessThan(objects);
    await topology.killPrimary();

    await waitFor(async () => (await appliedConfigMaps(plane, namespace, mark)).size === objects, 180_000, 'every ConfigMap applied after the failover').catch(async (error: unknown) => {
      const figures = await queues.figures().catch((failed: unknown) => String(failed));
      throw new Error(`${String(error)}: ${(await appliedConfigMaps(plane, namespace, mark)).size} of ${objects} applied; queue ${JSON.stringify(figures)}\n${outputs()}`);
    });
    // The test's own connection may still be finding the new primary: a refused read is asked again.
    await waitFor(() => queueIdle(queues).catch(() => false), 120_000, 'the queue to drain');

    // Converged: every ConfigMap is in the cluster as Git has it.
    const live = await managedConfigMaps(plane, namespace);
    expect(live).toHaveLength(objects);
    expect(live.every((item) => item.data?.index === item.metadata.name.slice('config-'.length))).toBe(true);
    // Applied once for the revision: one server-side apply (not a dry-run) per ConfigMap.
    const applies = await appliedConfigMaps(plane, namespace, mark);
    expect([...applies].filter(([, count]) => count !== 1), 'ConfigMaps applied more than once for one revision').toEqual([]);
    // No job lost or failed.
    const [figures] = await queues.figures();
    // BullMQ's own record of a failed job says why (the figures count only the pipeline's failures by object).
    const bullQueue = new Queue(queueNameFor(target), { connection: redisConnectionFor(topology.endpoint) as ConnectionOptions, prefix: clusterQueuePrefix({ prefix: topology.prefix, hashTag: 'cluster' in topology.endpoint }, target) });
    const failedJobs = await bullQueue.getJobs(['failed']).finally(() => bullQueue.close());
    // Not even a record of a run that ended while the slot had no primary: the queue's commands are
    // retried through the failover (FailoverCluster), so BullMQ records every run's end.
    expect(failedJobs.length, `failed jobs: ${JSON.stringify(failedJobs.map((job) => [job.id, job.failedReason, job.attemptsMade, job.stacktrace?.[0]?.slice(0, 300)]))}`).toBe(0);
    expect(figures?.depth.failed).toBe(0);
    expect(figures?.failingObjects).toBe(0);

    // The dashboard lists every object, each Ready on the target cluster.
    const readyOnDashboard = async () => {
      const response = await fetch(new URL(`/api/objects?namespace=${namespace}&pageSize=500`, base), { headers: { authorization: `Bearer ${token}` } });
      if (!response.ok) return false;
      const page = await response.json() as ObjectsPage;
      return page.total === objects && page.rows.every((row) => row.cells[target]?.state === 'Ready');
    };
    // The dashboard's recovery after its subscriber reconnects waits for up to 30 sync markers (2 s
    // each) before it reloads, and retries the reload: on a loaded machine that is past 60 s.
    await waitFor(readyOnDashboard, 150_000, `the dashboard to list all ${objects} ConfigMaps Ready after the failover:\n${outputs()}`);

    // Live updates resume: a change pushed after the failover reaches the stream opened before it.
    const seen = events.text.length;
    const changed = `${target}|core/ConfigMap/${namespace}/config-0`;
    const markAfter = await markAuditLog(plane.auditLogPath!);
    await writeConfigMaps(repo, namespace, [0], '  changed: "after the failover"\n');
    await repo.commitAndPush('config-0 changed after the failover');
    await waitFor(() => events.text.slice(seen).split('\n\n').some((event) => event.startsWith('event: cells') && event.includes(JSON.stringify(changed))), 120_000, `a live update of config-0 after the failover:\n${outputs()}`);
    events.close();
    expect([...(await appliedConfigMaps(plane, namespace, markAfter))]).toEqual([['config-0', 1]]);

    // Neither app exited on the way, neither wrote a password to its output, and each logged its
    // lost Redis connections instead of leaving ioredis to print them as unhandled.
    for (const app of [reconciler, dashboard]) {
      expect(app.output, `${app.name} output`).not.toContain('Unhandled error event');
      expect(app.child.exitCode, `${app.name} exit code`).toBeNull();
      expect(app.child.signalCode, `${app.name} signal`).toBeNull();
      for (const secret of Object.values(secrets)) expect(app.output).not.toContain(secret);
    }
  }, 600_000);
});
