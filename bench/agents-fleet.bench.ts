// Agents against one Redis (issue 40 item 7). Two parts, each with its own Redis:
//  1. A fleet: one hub (the bundle, as the image runs it) with N clusters all served by agents
//     (`agent: true`), and one agent per cluster, for each size in --sizes (default 1 and 50, so
//     the one-cluster fleet is the baseline of the same run). The agents' clusters are STAND-INS
//     (bench/support/stand-in-clusters.ts, one in-process HTTP server answering the API an agent
//     uses from memory): no 50 API servers fit on the rig. The first --processes agents run as
//     processes of their own (the bundle, TIDEMARK_ROLE=agent); the rest run in this process, each a
//     whole startReconciler of its own with its own Redis connections, as a process would have.
//     Measured per cluster: Redis commands (INFO commandstats, commands run inside scripts counted
//     too; the bench's own INFO calls left out) per second at steady state (a window as long as the
//     resync interval, so every object's resync falls in it once) and per object in a push of every
//     object, Redis CPU (INFO cpu), `used_memory` once converged against before the hub started,
//     and the hub's CPU (/proc) per minute at steady state and in the push.
//  2. Push → live through an agent against through a hub worker, on real API servers (two
//     kube-testenv planes): one hub process serving `via-hub` with its own worker and one agent
//     process serving `via-agent`; each push changes one ConfigMap, announced by webhook, and the
//     bench's watch on each plane sees the new value (goal: agent ≤ 1.2× hub worker).
//   npx tsx bench/agents-fleet.bench.ts [--sizes 1,50] [--processes 3] [--objects 20] [--resync-s 60] [--pushes 15] [--only fleet|latency]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { ClusterConnection, watchObjects } from '@tidemark/cluster';
import { buildAppBundles, freePort, killAppProcess, sendGithubPush, startAppProcess, startControlPlanes, startGitServer, startRedis, type AppBundles, type AppProcess, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../apps/reconciler/src/config';
import { startReconciler, type RunningReconciler } from '../apps/reconciler/src/reconciler';
import { figure, percentile, printFigures, say, shown, sortedCopy, type Figure } from './support/figures';
import { cpuSeconds } from './support/process-cpu';
import { startStandInClusters } from './support/stand-in-clusters';

const { values } = parseArgs({ options: {
  sizes: { type: 'string', default: '1,50' }, processes: { type: 'string', default: '3' }, objects: { type: 'string', default: '20' },
  'resync-s': { type: 'string', default: '60' }, pushes: { type: 'string', default: '15' }, only: { type: 'string', default: 'all' },
} });
const sizes = values.sizes.split(',').map(Number);
const processAgents = Number(values.processes);
const objects = Number(values.objects);
const resyncMs = Number(values['resync-s']) * 1000;
const pushes = Number(values.pushes);
if (!['all', 'fleet', 'latency'].includes(values.only)) throw new Error(`--only takes fleet or latency; got "${values.only}"`);
if (sizes.some((size) => !Number.isInteger(size) || size < 1) || resyncMs < 10_000) throw new Error('--sizes takes whole numbers from 1, --resync-s at least 10');
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const namespace = 'fleet';
const secret = 'agents-fleet-webhook-secret-0123';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RedisReading is one look at Redis: commands run (by command), its CPU seconds and used_memory. */
interface RedisReading { calls: Map<string, number>; cpu: number; memory: number; clients: number; at: number }

async function readRedis(client: Redis): Promise<RedisReading> {
  const [commands, cpu, memory, clients] = await Promise.all(['commandstats', 'cpu', 'memory', 'clients'].map((section) => client.info(section)));
  const calls = new Map<string, number>();
  for (const match of commands!.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (match[1] !== 'info') calls.set(match[1]!, Number(match[2]));
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { calls, cpu: field(cpu!, 'used_cpu_user') + field(cpu!, 'used_cpu_sys'), memory: field(memory!, 'used_memory'), clients: field(clients!, 'connected_clients'), at: performance.now() };
}

/** commandsBetween: commands run between two readings, in all and by command (most first). */
function commandsBetween(before: RedisReading, after: RedisReading): { total: number; byCommand: [string, number][] } {
  const byCommand = [...after.calls].map(([name, calls]) => [name, calls - (before.calls.get(name) ?? 0)] as [string, number]).filter(([, calls]) => calls > 0).sort((a, b) => b[1] - a[1]);
  return { total: byCommand.reduce((sum, [, calls]) => sum + calls, 0), byCommand };
}

function configMaps(revision: string): Record<string, string> {
  const files: Record<string, string> = { 'ns.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) };
  for (let index = 0; index < objects; index += 1) {
    files[`cm/${index}.yaml`] = stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${index}`, namespace }, data: { index: String(index), revision } });
  }
  return files;
}

async function writeAll(repo: WorkingCopy, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) await repo.write(path, content);
}

/** Shared by every hub and agent of one part: Redis, the source, the webhook and how often objects resync. */
function commonConfig(redisUrl: string, repoUrl: string, workDir: string, name: string): Record<string, unknown> {
  return {
    redis: { url: redisUrl, prefix: 'fleet' }, cacheDir: join(workDir, `cache-${name}`), http: { port: 0, host: '127.0.0.1' },
    // Changes arrive by webhook; a long interval keeps polls out of the windows.
    sources: [{ name: 'fleet', url: repoUrl, ref: { branch: 'main' }, intervalMs: 600_000, jitter: 0 }],
    resyncIntervalMs: resyncMs,
  };
}

interface Hub { app: AppProcess; port: number; notify(revision: string): Promise<void> }

async function startHub(bundles: AppBundles, workDir: string, config: Record<string, unknown>): Promise<Hub> {
  const port = await freePort();
  const path = join(workDir, 'hub.yaml');
  await writeFile(path, stringify({ ...config, http: { port, host: '127.0.0.1' }, webhooks: [{ source: 'fleet', provider: 'github', secret: { env: 'BENCH_WEBHOOK_SECRET' } }] }));
  const app = startAppProcess({ name: 'hub', bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: path, BENCH_WEBHOOK_SECRET: secret, TIDEMARK_ALLOW_EVICTION: 'true', TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
  await waitUntil(() => app.started, 180_000, () => `the hub to start:\n${app.output}`);
  return {
    app, port,
    async notify(revision) {
      const status = await sendGithubPush(`http://127.0.0.1:${port}/hooks/fleet`, secret, { ref: 'refs/heads/main', after: revision });
      if (status >= 300) throw new Error(`webhook answered ${status}`);
    },
  };
}

async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(200);
  }
}

/** FleetRun is what one fleet size measured. */
interface FleetRun {
  size: number;
  steady: { seconds: number; commandsPerSecondPerCluster: number; redisCpuPerMinutePerCluster: number; hubCpuPerMinute: number; top: [string, number][] };
  push: { seconds: number; commandsPerObjectPerCluster: number; redisCpuPerCluster: number; hubCpu: number; top: [string, number][] };
  memoryPerCluster: number;
  hubMemory: number;
  clientsPerAgent: number;
  agentProcessCpuPerMinute: number | undefined;
  agentProcessRss: number | undefined;
}

async function fleet(size: number, bundles: AppBundles, git: GitServer): Promise<FleetRun> {
  const workDir = await mkdtemp(join(tmpdir(), `tidemark-bench-fleet-${size}-`));
  const redis = await startRedis({ url: '' });
  const client = new Redis(redis.url);
  const clusters = Array.from({ length: size }, (_, index) => `fleet-${String(index + 1).padStart(2, '0')}`);
  const standIns = await startStandInClusters(clusters);
  const repoName = `fleet-${size}`;
  const repoUrl = await git.createRepository(repoName);
  const repo = await git.workingCopy(repoName);
  await writeAll(repo, configMaps('1'));
  const first = await repo.commitAndPush('fleet objects');
  const processes: AppProcess[] = [];
  const inProcess: RunningReconciler[] = [];
  let hub: Hub | undefined;
  const exited = () => processes.find((app) => app.child.exitCode !== null || app.child.signalCode !== null);
  try {
    const empty = await readRedis(client);
    hub = await startHub(bundles, workDir, { ...commonConfig(redis.url, repoUrl, workDir, 'hub'), clusters: clusters.map((name) => ({ name, agent: true })) });
    const hubOnly = await readRedis(client);
    say(`fleet of ${size}: hub started; Redis ${mib(empty.memory)} → ${mib(hubOnly.memory)} MiB; starting ${Math.min(size, processAgents)} agent processes and ${Math.max(0, size - processAgents)} in this process`);
    await hub.notify(first);
    for (const [index, cluster] of clusters.entries()) {
      const kubeconfig = join(workDir, `${cluster}.kubeconfig`);
      await writeFile(kubeconfig, standIns.kubeconfigFor(cluster));
      const path = join(workDir, `${cluster}.yaml`);
      await writeFile(path, stringify({ ...commonConfig(redis.url, repoUrl, workDir, cluster), clusters: [{ name: cluster, kubeconfig }] }));
      if (index < processAgents) {
        processes.push(startAppProcess({ name: cluster, bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent', TIDEMARK_ALLOW_EVICTION: 'true', TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' }));
      } else {
        const config = loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent', TIDEMARK_ALLOW_EVICTION: 'true' });
        inProcess.push(await startReconciler(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'error' }, pino.destination(2))));
      }
    }
    await waitUntil(() => processes.every((app) => app.started) || exited() !== undefined, 300_000, () => `the agent processes to start:\n${processes.map((app) => app.output).join('\n')}`);
    const converged = (revision: string) => {
      const gone = exited();
      if (gone) throw new Error(`agent process ${gone.name} exited (${gone.child.exitCode ?? gone.child.signalCode}):\n${gone.output}`);
      return clusters.every((cluster) => standIns.objectsOf(cluster, 'configmaps').filter((object) => (object.data as { revision?: string } | undefined)?.revision === revision).length === objects);
    };
    await waitUntil(() => converged('1'), 600_000, () => `every stand-in cluster to hold ${objects} ConfigMaps`);
    say(`fleet of ${size}: converged on the first commit; waiting ${resyncMs / 1000} s for the first resync to pass`);
    // The first resync of every object comes one interval after its apply: the window starts after it.
    await sleep(resyncMs + 5_000);

    // Steady state: one resync interval with nothing changing.
    const agentCpuBefore = await Promise.all(processes.map((app) => cpuSeconds(app.child.pid!)));
    const [steadyStart, hubSteadyStart] = [await readRedis(client), await cpuSeconds(hub.app.child.pid!)];
    await sleep(resyncMs);
    const [steadyEnd, hubSteadyEnd] = [await readRedis(client), await cpuSeconds(hub.app.child.pid!)];
    const agentCpuAfter = await Promise.all(processes.map((app) => cpuSeconds(app.child.pid!)));
    const steadySeconds = (steadyEnd.at - steadyStart.at) / 1000;
    const steadyCommands = commandsBetween(steadyStart, steadyEnd);
    const steadyRate = steadyCommands.total / steadySeconds;

    // A push of every object, until every stand-in holds it and Redis is back to its steady rate.
    await writeAll(repo, configMaps('2'));
    const second = await repo.commitAndPush('every ConfigMap changed');
    const [pushStart, hubPushStart] = [await readRedis(client), await cpuSeconds(hub.app.child.pid!)];
    await hub.notify(second);
    await waitUntil(() => converged('2'), 600_000, () => `every stand-in cluster to hold ${objects} ConfigMaps at revision 2`);
    const liveSeconds = (performance.now() - pushStart.at) / 1000;
    const pushEnd = await settled(client, steadyRate);
    const hubPushEnd = await cpuSeconds(hub.app.child.pid!);
    const pushSeconds = (pushEnd.at - pushStart.at) / 1000;
    // The push's own commands: the window's, less what the steady rate would have sent in it.
    const pushCommands = commandsBetween(pushStart, pushEnd);
    const pushOwn = pushCommands.total - steadyRate * pushSeconds;
    say(`fleet of ${size}: push live on every cluster in ${liveSeconds.toFixed(1)} s, Redis back to its steady rate after ${pushSeconds.toFixed(1)} s`);
    const rss = await Promise.all(processes.map((app) => rssBytes(app.child.pid!)));
    return {
      size,
      steady: {
        seconds: steadySeconds, commandsPerSecondPerCluster: steadyRate / size,
        redisCpuPerMinutePerCluster: ((steadyEnd.cpu - steadyStart.cpu) / steadySeconds) * 60 / size,
        hubCpuPerMinute: ((hubSteadyEnd - hubSteadyStart) / steadySeconds) * 60,
        top: perCluster(steadyCommands.byCommand, size * steadySeconds),
      },
      push: {
        seconds: pushSeconds, commandsPerObjectPerCluster: pushOwn / size / objects,
        redisCpuPerCluster: (pushEnd.cpu - pushStart.cpu - ((steadyEnd.cpu - steadyStart.cpu) / steadySeconds) * pushSeconds) / size,
        hubCpu: hubPushEnd - hubPushStart,
        top: perCluster(pushCommands.byCommand, size * objects),
      },
      memoryPerCluster: (steadyEnd.memory - hubOnly.memory) / size,
      hubMemory: hubOnly.memory - empty.memory,
      clientsPerAgent: (steadyEnd.clients - hubOnly.clients) / size,
      agentProcessCpuPerMinute: processes.length ? average(agentCpuAfter.map((after, index) => ((after - agentCpuBefore[index]!) / steadySeconds) * 60)) : undefined,
      agentProcessRss: rss.length ? average(rss) : undefined,
    };
  } finally {
    await Promise.all(processes.map((app) => stopGently(app)));
    for (const agent of inProcess) await agent.stop();
    if (hub) await stopGently(hub.app);
    await standIns.stop();
    client.disconnect();
    await redis.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** settled waits until Redis runs commands at no more than 1.5× the steady rate over 2 s (at most 120 s), and gives that reading. */
async function settled(client: Redis, steadyRate: number): Promise<RedisReading> {
  let last = await readRedis(client);
  for (let waited = 0; waited < 120_000; waited += 2_000) {
    await sleep(2_000);
    const now = await readRedis(client);
    if (commandsBetween(last, now).total / ((now.at - last.at) / 1000) <= Math.max(1.5 * steadyRate, steadyRate + 20)) return now;
    last = now;
  }
  return last;
}

/** stopGently sends SIGTERM and waits up to 20 s before SIGKILL. */
async function stopGently(app: AppProcess): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill('SIGTERM');
  await Promise.race([app.exited, sleep(20_000)]);
  await killAppProcess(app);
}

async function rssBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;
}

function perCluster(byCommand: [string, number][], divisor: number): [string, number][] {
  return byCommand.slice(0, 8).map(([name, calls]) => [name, shown(calls / divisor)]);
}

const average = (numbers: readonly number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** latency: push → live through one agent and through one hub worker, on two real API servers, same pushes. */
async function latency(bundles: AppBundles, git: GitServer): Promise<{ agent: number[]; hubWorker: number[] }> {
  const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-fleet-latency-'));
  const planes = await startControlPlanes(2, 'agents-fleet');
  const [agentPlane, hubPlane] = planes as [typeof planes[0], typeof planes[0]];
  const redis: TestRedis = await startRedis({ url: '' });
  const repoUrl = await git.createRepository('latency');
  const repo = await git.workingCopy('latency');
  const connections = { agent: ClusterConnection.connect({ cluster: 'via-agent', kubeconfig: agentPlane.kubeconfig }), hubWorker: ClusterConnection.connect({ cluster: 'via-hub', kubeconfig: hubPlane.kubeconfig }) };
  const seen = { agent: new Map<string, number>(), hubWorker: new Map<string, number>() };
  const watches = Object.entries(connections).map(([side, connection]) => watchObjects(connection, {
    apiVersion: 'v1', kind: 'ConfigMap', namespace,
    onEvent: (_type, object) => {
      const value = (object as { data?: { value?: string } }).data?.value;
      if (object.metadata.name === 'latency' && value && !seen[side as keyof typeof seen].has(value)) seen[side as keyof typeof seen].set(value, performance.now());
    },
  }));
  let hub: Hub | undefined;
  let agent: AppProcess | undefined;
  const latencyMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'latency', namespace }, data: { value } });
  try {
    await repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    await repo.write('latency.yaml', latencyMap('warm'));
    const first = await repo.commitAndPush('warm-up');
    hub = await startHub(bundles, workDir, { ...commonConfig(redis.url, repoUrl, workDir, 'hub'), clusters: [{ name: 'via-agent', agent: true }, { name: 'via-hub', kubeconfig: hubPlane.kubeconfigPath }] });
    const agentConfig = join(workDir, 'via-agent.yaml');
    await writeFile(agentConfig, stringify({ ...commonConfig(redis.url, repoUrl, workDir, 'agent'), clusters: [{ name: 'via-agent', kubeconfig: agentPlane.kubeconfigPath }] }));
    agent = startAppProcess({ name: 'via-agent', bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: agentConfig, TIDEMARK_ROLE: 'agent', TIDEMARK_ALLOW_EVICTION: 'true', TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
    await waitUntil(() => agent!.started, 180_000, () => `the agent to start:\n${agent!.output}`);
    await Promise.all(watches.map((running) => running.synced));
    await hub.notify(first);
    await waitUntil(() => seen.agent.has('warm') && seen.hubWorker.has('warm'), 240_000, () => `the warm-up ConfigMap on both planes:\n${hub!.app.output}\n${agent!.output}`);
    const times = { agent: [] as number[], hubWorker: [] as number[] };
    for (let index = 0; index < pushes; index += 1) {
      const value = `v${index}`;
      await repo.write('latency.yaml', latencyMap(value));
      const revision = await repo.commitAndPush(value);
      const started = performance.now();
      await hub.notify(revision);
      await waitUntil(() => seen.agent.has(value) && seen.hubWorker.has(value), 60_000, () => `push ${value} live on both planes`);
      times.agent.push(seen.agent.get(value)! - started);
      times.hubWorker.push(seen.hubWorker.get(value)! - started);
      say(`  push ${index + 1}/${pushes}: through the agent ${Math.round(times.agent.at(-1)!)} ms, through the hub worker ${Math.round(times.hubWorker.at(-1)!)} ms`);
    }
    return times;
  } finally {
    for (const running of watches) running.stop();
    for (const connection of Object.values(connections)) connection.close();
    if (agent) await stopGently(agent);
    if (hub) await stopGently(hub.app);
    await redis.stop();
    await Promise.all(planes.map((plane) => plane.stop()));
    await rm(workDir, { recursive: true, force: true });
  }
}

const bundles = await buildAppBundles(repoRoot, `test-artifacts/bench-agents-fleet-${process.pid}`);
const git = await startGitServer();
const figures: Figure[] = [];
const extra: Record<string, unknown> = { standIn: 'the fleet\'s clusters are stand-ins for API servers (bench/support/stand-in-clusters.ts)', objects, resyncSeconds: resyncMs / 1000, processAgents };
try {
  if (values.only !== 'latency') {
    const runs: FleetRun[] = [];
    for (const size of sizes) {
      runs.push(await fleet(size, bundles, git));
      say(JSON.stringify(runs.at(-1)));
    }
    extra.fleet = runs;
    const [base, largest] = [runs[0]!, runs.at(-1)!];
    const stand = `${objects} ConfigMaps per stand-in cluster, resync ${resyncMs / 1000} s`;
    const baseline = () => `the same with ${base.size} cluster${base.size === 1 ? '' : 's'}, same run`;
    figures.push(
      figure(`Redis commands per cluster per minute at steady state, ${largest.size} agents (${stand})`, 'commands', largest.steady.commandsPerSecondPerCluster * 60, baseline(), base.steady.commandsPerSecondPerCluster * 60),
      figure(`Redis commands per object per cluster in a push of every object, ${largest.size} agents (${stand})`, 'commands', largest.push.commandsPerObjectPerCluster, baseline(), base.push.commandsPerObjectPerCluster),
      figure(`Redis CPU per cluster per minute at steady state, ${largest.size} agents (${stand})`, 'ms', largest.steady.redisCpuPerMinutePerCluster * 1000, baseline(), base.steady.redisCpuPerMinutePerCluster * 1000),
      figure(`Redis used_memory per cluster once converged, ${largest.size} agents (${stand})`, 'KiB', largest.memoryPerCluster / 1024, baseline(), base.memoryPerCluster / 1024),
      figure(`hub CPU per cluster per minute at steady state, ${largest.size} agent clusters (${stand})`, 'ms', (largest.steady.hubCpuPerMinute / largest.size) * 1000, baseline(), (base.steady.hubCpuPerMinute / base.size) * 1000),
      figure(`hub CPU per cluster in a push of every object, ${largest.size} agent clusters (${stand})`, 'ms', (largest.push.hubCpu / largest.size) * 1000, baseline(), (base.push.hubCpu / base.size) * 1000),
    );
  }
  if (values.only !== 'fleet') {
    say(`push → live: ${pushes} one-ConfigMap pushes through an agent and through a hub worker, two real API servers`);
    const times = await latency(bundles, git);
    const [agentSorted, hubSorted] = [sortedCopy(times.agent), sortedCopy(times.hubWorker)];
    extra.latency = { agentMs: times.agent.map(Math.round), hubWorkerMs: times.hubWorker.map(Math.round) };
    figures.push(
      figure(`push → live through an agent, p50 of ${pushes} (kube-testenv API server)`, 'ms', percentile(agentSorted, 0.5), 'through a hub worker, same pushes, p50', percentile(hubSorted, 0.5)),
      figure(`push → live through an agent, p90 of ${pushes} (kube-testenv API server)`, 'ms', percentile(agentSorted, 0.9), 'through a hub worker, same pushes, p90', percentile(hubSorted, 0.9)),
    );
  }
  printFigures('agents-fleet', figures, extra);
} finally {
  await git.stop();
  await bundles.remove();
}
