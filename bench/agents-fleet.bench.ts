// Agents against one Redis (issue 40 item 7). Two parts, each with its own Redis:
//  1. A fleet: one hub (the bundle, as the image runs it) with N clusters all served by agents
//     (`agent: true`), and one agent per cluster, for each size in --sizes (default 1 and 50, so
//     the one-cluster fleet is the baseline of the same run). The agents' clusters are STAND-INS
//     (bench/support/stand-in-clusters.ts, one in-process HTTP server answering the API an agent
//     uses from memory): no 50 API servers fit on the rig. Every agent, like the hub, is a process
//     of its own: the bundle with the image's node flags, TIDEMARK_ROLE=agent, at most
//     --start-concurrency starting at once, its whole output in a log file and how it ended (exit
//     code or signal, last RSS) kept (support/bundle-processes.ts), so a lost process says why.
//     Measured per cluster: Redis commands (INFO commandstats, commands run inside scripts counted
//     too; the bench's own INFO calls left out) per minute at steady state (a window as long as the
//     resync interval, so every object's resync falls in it once) and per object in a push of every
//     object, Redis CPU (INFO cpu), `used_memory` and connections at steady state against Redis with
//     the hub alone, and the hub's CPU (/proc) per minute at steady state and in the push; the
//     1-minute load average at each window's start and end is printed beside its figures.
//  2. Push → live through an agent against through a hub worker, on real API servers (two
//     kube-testenv planes): one hub process serving `via-hub` with its own worker and one agent
//     process serving `via-agent`; each push changes one ConfigMap, announced by webhook, and the
//     bench's watch on each plane sees the new value (goal: agent ≤ 1.2× hub worker).
//   npx tsx bench/agents-fleet.bench.ts [--sizes 1,50] [--start-concurrency 2] [--objects 20] [--resync-s 60] [--pushes 15] [--only fleet|latency]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { messageOf } from '@tidemark/contracts';
import { ClusterConnection, watchObjects } from '@tidemark/cluster';
import { buildAppBundles, freePort, sendGithubPush, startControlPlanes, startGitServer, startRedis, type AppBundles, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';
import { figure, percentile, printFigures, say, shown, sortedCopy, type Figure } from './support/figures';
import { endText, loadAverage, startStaggered, stopBundleProcess, type BundleProcess, type BundleProcessOptions } from './support/bundle-processes';
import { cpuSeconds } from './support/process-cpu';
import { imageNodeFlags, procStatus } from './support/reconciler-process';
import { startStandInClusters } from './support/stand-in-clusters';

const { values } = parseArgs({ options: {
  sizes: { type: 'string', default: '1,50' }, 'start-concurrency': { type: 'string', default: '2' }, objects: { type: 'string', default: '20' },
  'resync-s': { type: 'string', default: '60' }, pushes: { type: 'string', default: '15' }, only: { type: 'string', default: 'all' },
} });
const sizes = values.sizes.split(',').map(Number);
const startConcurrency = Number(values['start-concurrency']);
const objects = Number(values.objects);
const resyncMs = Number(values['resync-s']) * 1000;
const pushes = Number(values.pushes);
if (!['all', 'fleet', 'latency'].includes(values.only)) throw new Error(`--only takes fleet or latency; got "${values.only}"`);
if (sizes.some((size) => !Number.isInteger(size) || size < 1) || resyncMs < 10_000) throw new Error('--sizes takes whole numbers from 1, --resync-s at least 10');
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** The node flags of the reconciler image's ENTRYPOINT, which every hub and agent process here runs with. */
const nodeFlags = await imageNodeFlags();
const namespace = 'fleet';
const secret = 'agents-fleet-webhook-secret-0123';
/** How long a push of every object may take to be live on every cluster before it is reported as not live. */
const pushTimeoutMs = 240_000;
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

interface Hub { app: BundleProcess; port: number; notify(revision: string): Promise<void> }

/** bundleProcessOptions: the bundle as the image runs it (its node flags), its log in workDir. */
function bundleProcessOptions(bundles: AppBundles, workDir: string, name: string, env: Record<string, string>): BundleProcessOptions {
  return { name, bundle: bundles.reconciler, nodeFlags, env: { TIDEMARK_ALLOW_EVICTION: 'true', TIDEMARK_LOG_LEVEL: 'info', ...env }, logPath: join(workDir, `${name}.log`), startedLine: 'tidemark reconciler started' };
}

async function startHub(bundles: AppBundles, workDir: string, config: Record<string, unknown>): Promise<Hub> {
  const port = await freePort();
  const path = join(workDir, 'hub.yaml');
  await writeFile(path, stringify({ ...config, http: { port, host: '127.0.0.1' }, webhooks: [{ source: 'fleet', provider: 'github', secret: { env: 'BENCH_WEBHOOK_SECRET' } }] }));
  const [app] = await startStaggered([bundleProcessOptions(bundles, workDir, 'hub', { TIDEMARK_CONFIG: path, BENCH_WEBHOOK_SECRET: secret })], 1, 180_000);
  return {
    app: app!, port,
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

/** Window is one measured stretch: its seconds and the 1-minute load average at its start and end. */
interface Window { seconds: number; load: [number, number] }

/** FleetRun is what one fleet size measured. */
interface FleetRun {
  size: number;
  steady: Window & { commandsPerMinutePerCluster: number; redisCpuMsPerMinutePerCluster: number; hubCpuMsPerMinutePerCluster: number; top: [string, number][] };
  push: Window & { failure: string | undefined; liveSeconds: number; commandsPerObjectPerCluster: number; redisCpuMsPerCluster: number; hubCpuMsPerCluster: number; top: [string, number][] };
  /** used_memory at the end of the steady window, less Redis with the hub alone, per cluster (KiB). */
  memoryKiBPerCluster: number;
  /** used_memory with the hub alone, less an empty Redis (KiB). */
  hubMemoryKiB: number;
  /** connected_clients at the end of the steady window, less those with the hub alone, per cluster. */
  connectionsPerCluster: number;
  hubRssMiB: number;
  agents: { started: number; startSeconds: number; startLoad: [number, number]; cpuMsPerMinute: { average: number; max: number }; rssMiB: { average: number; max: number } };
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
  let agents: BundleProcess[] = [];
  let hub: Hub | undefined;
  let failed = true;
  const lost = () => [hub?.app, ...agents].find((app) => app?.ended);
  const checkNoneLost = async () => {
    const gone = lost();
    if (gone) throw new Error(`${gone.name} exited: ${endText(gone)}\n${await gone.tail()}`);
  };
  try {
    const empty = await readRedis(client);
    hub = await startHub(bundles, workDir, { ...commonConfig(redis.url, repoUrl, workDir, 'hub'), clusters: clusters.map((name) => ({ name, agent: true })) });
    const hubOnly = await readRedis(client);
    await hub.notify(first);
    const options: BundleProcessOptions[] = [];
    for (const cluster of clusters) {
      const kubeconfig = join(workDir, `${cluster}.kubeconfig`);
      await writeFile(kubeconfig, standIns.kubeconfigFor(cluster));
      const path = join(workDir, `${cluster}.yaml`);
      await writeFile(path, stringify({ ...commonConfig(redis.url, repoUrl, workDir, cluster), clusters: [{ name: cluster, kubeconfig }] }));
      options.push(bundleProcessOptions(bundles, workDir, cluster, { TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent' }));
    }
    const startLoad = await loadAverage();
    say(`fleet of ${size}: hub started; Redis ${mib(empty.memory)} → ${mib(hubOnly.memory)} MiB; starting ${size} agent processes, ${startConcurrency} at a time (load ${startLoad}); logs in ${workDir}`);
    const startedAt = performance.now();
    agents = await startStaggered(options, startConcurrency, 240_000, (app, index) => {
      if ((index + 1) % 10 === 0 || index + 1 === size) say(`  ${index + 1}/${size} agents started (${app.name})`);
    });
    const startSeconds = (performance.now() - startedAt) / 1000;
    const startedLoad = await loadAverage();
    const converged = async (revision: string) => {
      await checkNoneLost();
      return clusters.every((cluster) => standIns.objectsOf(cluster, 'configmaps').filter((object) => (object.data as { revision?: string } | undefined)?.revision === revision).length === objects);
    };
    await waitUntil(() => converged('1'), 900_000, () => `every stand-in cluster to hold ${objects} ConfigMaps`);
    say(`fleet of ${size}: converged on the first commit; waiting ${resyncMs / 1000} s for the first resync to pass`);
    // The first resync of every object comes one interval after its apply: the window starts after it.
    await sleep(resyncMs + 5_000);
    await checkNoneLost();

    // Steady state: one resync interval with nothing changing.
    const pids = [hub.app, ...agents].map((app) => app.child.pid!);
    const [steadyStart, cpuStart, loadStart] = [await readRedis(client), await Promise.all(pids.map(cpuSeconds)), await loadAverage()];
    await sleep(resyncMs);
    const [steadyEnd, cpuEnd, loadEnd] = [await readRedis(client), await Promise.all(pids.map(cpuSeconds)), await loadAverage()];
    await checkNoneLost();
    const rss = await Promise.all(pids.map(async (pid) => (await procStatus(pid)).rss / 1024));
    const steadySeconds = (steadyEnd.at - steadyStart.at) / 1000;
    const steadyCommands = commandsBetween(steadyStart, steadyEnd);
    const steadyRate = steadyCommands.total / steadySeconds;
    const perMinute = (cpu: number) => (cpu / steadySeconds) * 60_000;
    const agentCpu = cpuEnd.slice(1).map((after, index) => perMinute(after - cpuStart[index + 1]!));
    say(`fleet of ${size}: steady window ${steadySeconds.toFixed(1)} s, load ${loadStart}→${loadEnd}, ${(steadyRate * 60 / size).toFixed(0)} commands/min per cluster`);

    // A push of every object, until every stand-in holds it and Redis is back to its steady rate. A
    // push not live in pushTimeoutMs is reported as such (with the hub's warnings), and the steady figures still stand.
    await writeAll(repo, configMaps('2'));
    const second = await repo.commitAndPush('every ConfigMap changed');
    const [pushStart, hubPushStart, pushLoadStart] = [await readRedis(client), await cpuSeconds(hub.app.child.pid!), await loadAverage()];
    await hub.notify(second);
    const pushFailure = await waitUntil(() => converged('2'), pushTimeoutMs, () => `every stand-in cluster to hold ${objects} ConfigMaps at revision 2`).then(() => undefined, async (error: unknown) => {
      await checkNoneLost();
      const warnings = (await hub!.app.tail(400)).split('\n').filter((line) => line.includes('"level":40') || line.includes('"level":50')).slice(-5);
      return `${messageOf(error)}; the hub's last warnings: ${warnings.join(' ')}`;
    });
    const liveSeconds = (performance.now() - pushStart.at) / 1000;
    const pushEnd = await settled(client, steadyRate);
    const [hubPushEnd, pushLoadEnd] = [await cpuSeconds(hub.app.child.pid!), await loadAverage()];
    await checkNoneLost();
    const pushSeconds = (pushEnd.at - pushStart.at) / 1000;
    // The push's own commands: the window's, less what the steady rate would have sent in it.
    const pushCommands = commandsBetween(pushStart, pushEnd);
    const pushOwn = pushCommands.total - steadyRate * pushSeconds;
    say(pushFailure ? `fleet of ${size}: PUSH NOT LIVE: ${pushFailure}` : `fleet of ${size}: push live on every cluster in ${liveSeconds.toFixed(1)} s, Redis back to its steady rate after ${pushSeconds.toFixed(1)} s`);
    failed = false;
    return {
      size,
      steady: {
        seconds: round1(steadySeconds), load: [loadStart, loadEnd],
        commandsPerMinutePerCluster: (steadyRate * 60) / size,
        redisCpuMsPerMinutePerCluster: perMinute(steadyEnd.cpu - steadyStart.cpu) / size,
        hubCpuMsPerMinutePerCluster: perMinute(cpuEnd[0]! - cpuStart[0]!) / size,
        top: perCluster(steadyCommands.byCommand, size * steadySeconds),
      },
      push: {
        seconds: round1(pushSeconds), load: [pushLoadStart, pushLoadEnd], liveSeconds: round1(liveSeconds), failure: pushFailure,
        commandsPerObjectPerCluster: pushOwn / size / objects,
        redisCpuMsPerCluster: ((pushEnd.cpu - pushStart.cpu - ((steadyEnd.cpu - steadyStart.cpu) / steadySeconds) * pushSeconds) * 1000) / size,
        hubCpuMsPerCluster: ((hubPushEnd - hubPushStart) * 1000) / size,
        top: perCluster(pushCommands.byCommand, size * objects),
      },
      memoryKiBPerCluster: (steadyEnd.memory - hubOnly.memory) / 1024 / size,
      hubMemoryKiB: (hubOnly.memory - empty.memory) / 1024,
      connectionsPerCluster: (steadyEnd.clients - hubOnly.clients) / size,
      hubRssMiB: round1(rss[0]!),
      agents: {
        started: agents.length, startSeconds: round1(startSeconds), startLoad: [startLoad, startedLoad],
        cpuMsPerMinute: { average: round1(average(agentCpu)), max: round1(Math.max(...agentCpu)) },
        rssMiB: { average: round1(average(rss.slice(1))), max: round1(Math.max(...rss.slice(1))) },
      },
    };
  } finally {
    await Promise.all(agents.map((app) => stopBundleProcess(app)));
    if (hub) await stopBundleProcess(hub.app);
    await standIns.stop();
    client.disconnect();
    await redis.stop();
    // A failed run keeps every process's log for the reader.
    if (failed) say(`fleet of ${size} failed: the processes' logs stay in ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
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

function perCluster(byCommand: [string, number][], divisor: number): [string, number][] {
  return byCommand.slice(0, 8).map(([name, calls]) => [name, shown(calls / divisor)]);
}

const average = (numbers: readonly number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
const round1 = (value: number) => Math.round(value * 10) / 10;
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
  let agent: BundleProcess | undefined;
  const latencyMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'latency', namespace }, data: { value } });
  try {
    await repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    await repo.write('latency.yaml', latencyMap('warm'));
    const first = await repo.commitAndPush('warm-up');
    hub = await startHub(bundles, workDir, { ...commonConfig(redis.url, repoUrl, workDir, 'hub'), clusters: [{ name: 'via-agent', agent: true }, { name: 'via-hub', kubeconfig: hubPlane.kubeconfigPath }] });
    const agentConfig = join(workDir, 'via-agent.yaml');
    await writeFile(agentConfig, stringify({ ...commonConfig(redis.url, repoUrl, workDir, 'agent'), clusters: [{ name: 'via-agent', kubeconfig: agentPlane.kubeconfigPath }] }));
    [agent] = await startStaggered([bundleProcessOptions(bundles, workDir, 'via-agent', { TIDEMARK_CONFIG: agentConfig, TIDEMARK_ROLE: 'agent' })], 1, 180_000);
    await Promise.all(watches.map((running) => running.synced));
    await hub.notify(first);
    await waitUntil(() => seen.agent.has('warm') && seen.hubWorker.has('warm'), 240_000, () => 'the warm-up ConfigMap on both planes');
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
    if (agent) await stopBundleProcess(agent);
    if (hub) await stopBundleProcess(hub.app);
    await redis.stop();
    await Promise.all(planes.map((plane) => plane.stop()));
    await rm(workDir, { recursive: true, force: true });
  }
}

const bundles = await buildAppBundles(repoRoot, `test-artifacts/bench-agents-fleet-${process.pid}`);
const git = await startGitServer();
const figures: Figure[] = [];
const extra: Record<string, unknown> = { standIn: 'the fleet\'s clusters are stand-ins for API servers (bench/support/stand-in-clusters.ts)', objects, resyncSeconds: resyncMs / 1000, nodeFlags };
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
    const loads = (run: FleetRun, window: Window) => `load ${window.load[0]}→${window.load[1]} at ${run.size}`;
    const baseline = (window: (run: FleetRun) => Window) => `the same with ${base.size} agent process${base.size === 1 ? '' : 'es'}, same run (${loads(base, window(base))})`;
    const name = (what: string, window: (run: FleetRun) => Window) => `${what}, ${largest.size} agent processes (${stand}; ${loads(largest, window(largest))})`;
    const [steady, push] = [(run: FleetRun) => run.steady, (run: FleetRun) => run.push];
    figures.push(
      figure(name('Redis commands per cluster per minute at steady state', steady), 'commands', largest.steady.commandsPerMinutePerCluster, baseline(steady), base.steady.commandsPerMinutePerCluster),
      figure(name('Redis CPU per cluster per minute at steady state', steady), 'ms', largest.steady.redisCpuMsPerMinutePerCluster, baseline(steady), base.steady.redisCpuMsPerMinutePerCluster),
      figure(name('Redis used_memory per cluster at steady state', steady), 'KiB', largest.memoryKiBPerCluster, baseline(steady), base.memoryKiBPerCluster),
      figure(name('Redis connections per cluster at steady state', steady), 'connections', largest.connectionsPerCluster, baseline(steady), base.connectionsPerCluster),
      figure(name('hub CPU per cluster per minute at steady state', steady), 'ms', largest.steady.hubCpuMsPerMinutePerCluster, baseline(steady), base.steady.hubCpuMsPerMinutePerCluster),
    );
    // A push not live on every cluster has no figures (its failure is in the fleet's JSON).
    if (!base.push.failure && !largest.push.failure) figures.push(
      figure(name('Redis commands per object per cluster in a push of every object', push), 'commands', largest.push.commandsPerObjectPerCluster, baseline(push), base.push.commandsPerObjectPerCluster),
      figure(name('hub CPU per cluster in a push of every object', push), 'ms', largest.push.hubCpuMsPerCluster, baseline(push), base.push.hubCpuMsPerCluster),
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
