// Agents on the rig: a hub and two agents, each agent with a control plane of its own whose
// kubeconfig only that agent is given. The hub (the real bundle, run under strace) declares both
// clusters `agent: true`; the trace of its connect() calls proves it never opened a connection to
// either API server (and, as a control, that the trace sees its Redis connections). A push converges
// on both; an agent killed mid-push is replaced and its cluster converges with no ConfigMap applied
// twice for one revision (the API server's audit log); a hand edit is healed by the agent there; a
// killed agent's cluster is Unavailable on the dashboard API once its heartbeat's TTL has passed.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { findCondition, RecordKeys, type ObjectStatus } from '@tidemark/contracts';
import { buildAppBundles, killAppProcess, markAuditLog, readAuditLog, startAppProcess, startControlPlane, startGitServer, type AppBundles, type AppProcess, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { removeKeys, sleep, waitFor } from '../queue/helpers';
import { appliedConfigMaps, writeConfigMaps } from '../queue/reconciler-apps';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

const id = randomUUID().slice(0, 8);
const namespace = `agents-${id}`;
const prefix = `agents-${id}`;
const source = 'fleet';
const objects = 120;
const ttlMs = 3_000;
const clusters = ['edge-1', 'edge-2'] as const;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const redisUrl = inject('redisUrl');
const keys = new RecordKeys(prefix);

let bundles: AppBundles;
let planes: ControlPlane[] = [];
let git: GitServer;
let repo: WorkingCopy;
let repoUrl: string;
let workDir: string;
let redis: Redis;
let hub: AppProcess;
let traceFile: string;
let dashboard: DashboardFixture;
const agents = new Map<string, AppProcess>();
let agentCount = 0;

const common = () => ({
  redis: { url: redisUrl, prefix },
  sources: [{ name: source, url: repoUrl, ref: { branch: 'main' }, intervalMs: 1_000 }],
  http: { port: 0, host: '127.0.0.1' },
  workers: { concurrency: 8 },
  agents: { heartbeatTtlMs: ttlMs },
  // The suites share a loaded machine: a slow answer must not make a reachable cluster Unavailable.
  healthCheck: { intervalMs: 300, timeoutMs: 30_000, failureThreshold: 10 },
});

/** startHub runs the hub bundle under strace, which writes every connect() of every thread to traceFile. */
async function startHub(): Promise<AppProcess> {
  const path = join(workDir, 'hub.yaml');
  await writeFile(path, stringify({ ...common(), cacheDir: join(workDir, 'cache-hub'), clusters: clusters.map((name) => ({ name, agent: true, labels: { site: name } })) }));
  const child = spawn('strace', ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=connect', '-o', traceFile, process.execPath, bundles.reconciler], {
    env: { ...process.env, TIDEMARK_CONFIG: path, TIDEMARK_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const app: AppProcess = { name: 'hub', child, output: '', started: false, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
  const keep = (chunk: Buffer) => {
    app.output = `${app.output}${chunk.toString()}`.slice(-8_000);
    if (app.output.includes('tidemark reconciler started')) app.started = true;
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return app;
}

/** stopHub ends the traced node process (strace's child) with SIGTERM; strace exits with it. */
async function stopHub(): Promise<void> {
  if (!hub || hub.child.exitCode !== null || hub.child.signalCode !== null) return;
  const tasks = await readdir(`/proc/${hub.child.pid}/task`).catch(() => [] as string[]);
  const children = (await Promise.all(tasks.map((task) => readFile(`/proc/${hub.child.pid}/task/${task}/children`, 'utf8').catch(() => '')))).join(' ').split(/\s+/).filter(Boolean).map(Number);
  for (const pid of children) process.kill(pid, 'SIGTERM');
  await Promise.race([hub.exited, sleep(20_000)]);
  if (hub.child.exitCode === null && hub.child.signalCode === null) {
    for (const pid of children) process.kill(pid, 'SIGKILL');
    await hub.exited;
  }
}

/** startAgent runs an agent for one cluster, with the kubeconfig of that cluster's plane and nothing else. */
async function startAgent(cluster: string): Promise<AppProcess> {
  const plane = planes[clusters.indexOf(cluster as (typeof clusters)[number])]!;
  const name = `agent-${(agentCount += 1)}`;
  const path = join(workDir, `${name}.yaml`);
  await writeFile(path, stringify({ ...common(), cacheDir: join(workDir, `cache-${name}`), clusters: [{ name: cluster, kubeconfig: plane.kubeconfigPath, labels: { site: cluster } }] }));
  const agent = startAppProcess({ name, bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent', TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
  agents.set(cluster, agent);
  return agent;
}

async function killAgent(cluster: string): Promise<void> {
  const agent = agents.get(cluster);
  agents.delete(cluster);
  if (agent) await killAppProcess(agent);
}

/** outputs is what the hub and the agents printed last, and every DELETE either API server was sent: said when a wait fails. */
async function outputs(): Promise<string> {
  const printed = [hub, ...agents.values()].filter(Boolean).map((app) => `--- ${app.name}\n${app.output}`).join('\n');
  const deletes = await Promise.all(planes.map(async (plane, index) => {
    const requests = (await readAuditLog(plane.auditLogPath!).catch(() => [])).filter((request) => request.verb === 'delete');
    return `--- DELETEs on ${clusters[index]}: ${requests.length}\n${requests.map((request) => `${request.code} ${request.requestURI} (${request.userAgent})`).join('\n')}`;
  }));
  return `${printed}\n${deletes.join('\n')}`;
}

/** readyAt counts one cluster's ConfigMaps whose status says Ready at the revision. */
async function readyAt(cluster: string, revision: string): Promise<number> {
  const records = Object.values(await redis.hgetall(keys.objectStatus(cluster))).map((text) => JSON.parse(text) as ObjectStatus);
  return records.filter((record) => record.kind === 'ConfigMap' && record.namespace === namespace && record.lastAppliedRevision === revision && findCondition(record.conditions, 'Ready')?.status === 'True').length;
}

async function liveData(plane: ControlPlane, name: string): Promise<Record<string, string> | undefined> {
  const text = await plane.kubectl(['get', 'configmap', name, '-n', namespace, '-o', 'json']).catch(() => undefined);
  return text ? (JSON.parse(text) as { data?: Record<string, string> }).data : undefined;
}

interface ClusterRowBody { name: string; health: { state: string; message?: string }; agent?: { heartbeat?: { version: string; serverVersion?: string } } }

async function dashboardClusters(): Promise<ClusterRowBody[]> {
  const response = await dashboard.app.inject({ url: '/api/clusters', headers: { authorization: `Bearer ${viewerToken}` } });
  expect(response.statusCode).toBe(200);
  return (response.json() as { clusters: ClusterRowBody[] }).clusters;
}

beforeAll(async () => {
  bundles = await buildAppBundles(repoRoot, `test-artifacts/agents-${id}`);
  planes = [await startControlPlane({ name: `agents-${id}-1`, auditLog: true }), await startControlPlane({ name: `agents-${id}-2`, auditLog: true })];
  git = await startGitServer();
  repoUrl = await git.createRepository(source);
  repo = await git.workingCopy(source);
  await repo.write('base/ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await writeConfigMaps(repo, namespace, Array.from({ length: objects }, (_, index) => index), '  revision: "1"\n');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-agents-'));
  traceFile = join(workDir, 'hub.strace');
  redis = new Redis(redisUrl);
  dashboard = await startDashboardFixture(redisUrl, { prefix, clusters: [...clusters] });
  hub = await startHub();
  for (const cluster of clusters) await startAgent(cluster);
  await waitFor(() => hub.started && [...agents.values()].every((agent) => agent.started), 180_000, async () => `the hub and the agents to start:\n${await outputs()}`);
}, 600_000);

afterAll(async () => {
  await Promise.all(clusters.map(killAgent));
  await stopHub();
  await dashboard?.stop();
  if (redis) {
    await removeKeys(redis, prefix);
    redis.disconnect();
  }
  await git?.stop();
  await Promise.all(planes.map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
  await bundles?.remove();
});

describe('a hub and two agents, each in its own cluster', () => {
  let first: string;

  it('converges a push on both clusters, and the dashboard shows them served by agents', async () => {
    first = await repo.commitAndPush('120 ConfigMaps');
    for (const cluster of clusters) {
      await waitFor(async () => (await readyAt(cluster, first)) === objects, 240_000, async () => `every ConfigMap Ready on ${cluster}:\n${await outputs()}`);
    }
    for (const plane of planes) expect(await liveData(plane, 'config-7')).toEqual({ index: '7', revision: '1' });
    const rows = await dashboardClusters();
    expect(rows.map((row) => [row.name, row.health.state])).toEqual([['edge-1', 'Available'], ['edge-2', 'Available']]);
    // Each agent reports its own cluster's server version, as that API server gives it.
    for (const [index, row] of rows.entries()) {
      const { gitVersion } = JSON.parse(await planes[index]!.kubectl(['get', '--raw', '/version'])) as { gitVersion: string };
      expect(row.agent?.heartbeat).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), serverVersion: gitVersion });
    }
  }, 300_000);

  it('resumes a push on a cluster whose agent is killed mid-push, applying no ConfigMap twice for the revision', async () => {
    await writeConfigMaps(repo, namespace, Array.from({ length: objects }, (_, index) => index), '  revision: "2"\n');
    const mark = await markAuditLog(planes[0]!.auditLogPath!);
    const second = await repo.commitAndPush('every ConfigMap at revision 2');
    await waitFor(async () => (await readyAt('edge-1', second)) > 0, 120_000, async () => `the first ConfigMap at revision 2 on edge-1:\n${await outputs()}`);
    const before = await readyAt('edge-1', second);
    await killAgent('edge-1');
    expect(before, 'the agent was killed before the push was done').toBeLessThan(objects);
    await startAgent('edge-1');
    // A killed agent's jobs come back when their lock expires (30 s) and the stalled check runs.
    await waitFor(async () => (await readyAt('edge-1', second)) === objects, 240_000, async () => `every ConfigMap Ready at revision 2 on edge-1:\n${await outputs()}`);
    await waitFor(async () => (await readyAt('edge-2', second)) === objects, 120_000, async () => `every ConfigMap Ready at revision 2 on edge-2:\n${await outputs()}`);
    expect(await liveData(planes[0]!, 'config-119')).toEqual({ index: '119', revision: '2' });
    // Today's bound (test/queue/replica-kills): one accepted apply per ConfigMap and revision; an apply the kill cut wrote nothing.
    const applies = await appliedConfigMaps(planes[0]!, namespace, mark);
    expect([...applies].filter(([, count]) => count !== 1), 'ConfigMaps applied more than once for one revision').toEqual([]);
    // A push that changes data deletes nothing, on either cluster: not the namespace, not an object in it.
    for (const plane of planes) {
      const deletes = (await readAuditLog(plane.auditLogPath!)).filter((request) => request.verb === 'delete' && request.requestURI.includes(`/namespaces/${namespace}`));
      expect(deletes.map((request) => `${request.requestURI} (${request.userAgent})`), `DELETEs on ${plane.name}`).toEqual([]);
    }
    const cut = await appliedConfigMaps(planes[0]!, namespace, mark, 'refused');
    expect(Array.from({ length: objects }, (_, index) => `config-${index}`).filter((name) => !applies.has(name) && !cut.has(name)), 'ConfigMaps never applied').toEqual([]);
  }, 420_000);

  it("heals a hand edit in an agent's cluster through that agent", async () => {
    await planes[1]!.kubectl(['patch', 'configmap', 'config-3', '-n', namespace, '--type', 'merge', '-p', '{"data":{"revision":"by hand"}}']);
    await waitFor(async () => (await liveData(planes[1]!, 'config-3'))?.revision === '2', 60_000, async () => `the hand edit on edge-2 healed:\n${await outputs()}`);
  }, 90_000);

  it('makes a killed agent\'s cluster Unavailable on the dashboard once its heartbeat has expired, its queue paused', async () => {
    await killAgent('edge-2');
    await waitFor(async () => (await dashboardClusters()).find((row) => row.name === 'edge-2')?.health.state === 'Unavailable', 30_000, async () => `edge-2 Unavailable on the dashboard:\n${await outputs()}`);
    const rows = await dashboardClusters();
    const edge2 = rows.find((row) => row.name === 'edge-2')!;
    expect(edge2.agent).toEqual({});
    expect(edge2.health.message).toContain('no heartbeat from the agent that serves it');
    expect(rows.find((row) => row.name === 'edge-1')?.health.state).toBe('Available');
    expect(JSON.parse((await redis.get(keys.clusterHealth('edge-2')))!)).toMatchObject({ queuePaused: true });
  }, 60_000);

  it('never opened a connection from the hub to either API server', async () => {
    await stopHub();
    const trace = await readFile(traceFile, 'utf8');
    // The control: the trace holds the hub's connections to Redis.
    expect(trace).toContain(`htons(${new URL(redisUrl).port})`);
    for (const plane of planes) expect(trace, `a connect() to ${plane.server}`).not.toContain(`htons(${new URL(plane.server).port})`);
  }, 60_000);
});
