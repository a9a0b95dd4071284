// Scale: N plain objects (ConfigMaps) to C clusters by one reconciler process, measured from the
// outside, each figure beside a baseline from the same run:
// - time until every object is on every cluster, against raw server-side apply of the same
//   objects to the same clusters (a minimal client, the reconciler's worker concurrency);
// - the reconciler's RSS idle after start, peak (VmHWM) and steady (VmRSS once converged), each
//   against a bare `node -e` started in the same run; Redis memory against Redis before the push.
//   The reconciler runs as the bundle deploy/ ships (scripts/build.mjs), or from source through
//   tsx with --from-source (tsx's transpiler and source maps cost memory of their own);
// - the steady state once converged: API requests and reconciler CPU seconds per resync
//   interval, against one list of the same objects per cluster (what `kubectl get -A` sends), and
//   the look-agains done in it (pipeline runs and objects the resync sweep answered without one, from
//   the reconciler's /metrics), so CPU per look-again compares runs that did not all keep up.
// The default size fits `npm run bench`'s 8 minutes per bench on 2 shared cores; the issue's size is
//   npx tsx bench/scale.bench.ts --objects 10000 --clusters 3 --resync-s 60 [--per-file 100] [--concurrency 8] [--from-source] [--node-flags='--enable-source-maps']
// (--node-flags defaults to the flags of the image's ENTRYPOINT, deploy/docker/reconciler.Dockerfile)
// --cpu-prof <dir> writes the reconciler's V8 CPU profile there (node --cpu-prof) and stops it right after the
// steady-state interval, so the profile's last seconds are the no-change resync; summarise them with
//   npx tsx bench/support/cpu-profile-window.ts <dir>/<file>.cpuprofile --last-s <seconds the bench printed>
// --scrape-s <n> (default 30) scrapes the reconciler's /metrics every n seconds once converged, as Prometheus
// would, so the steady state's CPU includes what a scrape costs; 0 for none.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { kubeUserAgent } from '@tidemark/cluster';
import { countByKind, markAuditLog, type AuditedRequest, readAuditLog, startControlPlane, startGitServer, startRedis, stopProcess, type ControlPlane } from '@tidemark/testing';
import { figure, pool, printFigures, say } from './support/figures';
import { RawClient } from './support/raw-apply';
import { cpuSeconds } from './support/process-cpu';
import { bareNodeRss, buildReconcilerBundle, freePort, imageNodeFlags, memorySplit, procStatus } from './support/reconciler-process';
import { messageOf } from '@tidemark/contracts';

const { values } = parseArgs({ options: {
  objects: { type: 'string', default: '300' }, clusters: { type: 'string', default: '3' },
  'resync-s': { type: 'string', default: '20' }, 'per-file': { type: 'string', default: '100' }, concurrency: { type: 'string', default: '8' },
  'from-source': { type: 'boolean', default: false }, 'node-flags': { type: 'string' }, 'cpu-prof': { type: 'string' },
  'scrape-s': { type: 'string', default: '30' },
} });
const cpuProfileDir = values['cpu-prof'];
const objects = Number(values.objects);
const clusterCount = Number(values.clusters);
const resyncS = Number(values['resync-s']);
const perFile = Number(values['per-file']);
const concurrency = Number(values.concurrency);
const scrapeS = Number(values['scrape-s']);
const namespaces = 10;
// resyncIntervalMs's default in apps/reconciler/src/config.ts, for the per-minute figures at the product's interval.
const defaultResyncS = 300;
const mib = (kib: number) => kib / 1024;

/** configMap i, in one of the bench's namespaces under `prefix`. */
function configMap(prefix: string, index: number): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${index}`, namespace: `${prefix}-${index % namespaces}`, labels: { bench: prefix } }, data: { index: String(index), text: 'x'.repeat(64) } };
}

/** countOn counts the ConfigMaps in the bench's namespaces with one-item lists (remainingItemCount says the rest). */
async function countOn(client: RawClient, prefix: string): Promise<number> {
  let count = 0;
  for (let n = 0; n < namespaces; n += 1) {
    const { status, text } = await client.get(`/api/v1/namespaces/${prefix}-${n}/configmaps?limit=1`);
    if (status !== 200) continue;
    const list = JSON.parse(text) as { items: unknown[]; metadata: { remainingItemCount?: number } };
    count += list.items.length + (list.metadata.remainingItemCount ?? 0);
  }
  return count;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 1_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A reconciler that exited (a config error at start, a crash) brings nothing more: stop waiting at once.
    reconcilerRunning(what);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

say(`starting ${clusterCount} API servers (with audit logs), Redis and a Git server`);
const planes: ControlPlane[] = [];
for (let index = 0; index < clusterCount; index += 1) planes.push(await startControlPlane({ name: `bench-scale-${index + 1}`, auditLog: true }));
const redis = await startRedis();
const git = await startGitServer();
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-scale-'));
const clients = await Promise.all(planes.map((plane) => RawClient.connect(plane.kubeconfig, concurrency)));
const redisClient = new Redis(redis.url);
const url = await git.createRepository('scale');
const repo = await git.workingCopy('scale');
for (let n = 0; n < namespaces; n += 1) {
  await repo.write(`namespaces/${n}.yaml`, stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${n}` } }));
}
await repo.commitAndPush('namespaces');
const configPath = join(workDir, 'tidemark.yaml');
const httpPort = await freePort();
await writeFile(configPath, stringify({
  redis: { url: redis.url, prefix: 'scale' }, cacheDir: join(workDir, 'cache'), http: { port: httpPort, host: '127.0.0.1' },
  sources: [{ name: 'scale', url, ref: { branch: 'main' }, intervalMs: 2_000, jitter: 0 }],
  clusters: planes.map((plane, index) => ({ name: `c${index + 1}`, kubeconfig: plane.kubeconfigPath })),
  workers: { concurrency }, resyncIntervalMs: resyncS * 1000,
}));
const bareRss = await bareNodeRss();
say(`bare node: RSS ${mib(bareRss).toFixed(0)} MiB`);
const bundleDir = `test-artifacts/bench-scale-${process.pid}`;
const entry = values['from-source'] ? ['--import', 'tsx', 'apps/reconciler/src/main.ts'] : [await buildReconcilerBundle(bundleDir)];
// The image's flags by default (deploy/docker/reconciler.Dockerfile); --node-flags= for none.
const nodeFlags = values['node-flags'] === undefined ? await imageNodeFlags() : values['node-flags'].split(/\s+/).filter(Boolean);
const profileFlags = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
const child = spawn(process.execPath, [...nodeFlags, ...profileFlags, ...entry], {
  env: { ...process.env, TIDEMARK_CONFIG: configPath, TIDEMARK_ALLOW_EVICTION: 'true', TIDEMARK_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'],
});
let stderrTail = '';
child.stderr.on('data', (chunk: Buffer) => { stderrTail = (stderrTail + chunk.toString()).slice(-4_000); });
const pid = child.pid!;
let exited: string | undefined;
child.once('exit', (code, signal) => { exited = code === null ? `signal ${signal}` : `code ${code}`; });

/** reconcilerRunning throws once the reconciler has exited (the catch below prints its stderr's tail); else true. */
function reconcilerRunning(what: string): true {
  if (exited !== undefined) throw new Error(`the reconciler exited with ${exited} while waiting for ${what}`);
  return true;
}

try {
  const namespacesThere = async () => (await Promise.all(clients.map((client) => client.get('/api/v1/namespaces/scale-9')))).every(({ status }) => status === 200);
  await waitFor('the namespaces on every cluster', namespacesThere, 180_000);
  await new Promise((resolve) => setTimeout(resolve, 10_000)); // idle, to read the baseline RSS once start-up allocations settled
  const idle = await procStatus(pid);
  const idleSplit = await memorySplit(httpPort);
  const redisIdle = await usedMemory(redisClient);
  say(`reconciler idle (${values['from-source'] ? 'from source, tsx' : 'bundle'}): RSS ${mib(idle.rss).toFixed(0)} MiB (${splitText(idleSplit)}); pushing ${objects} ConfigMaps for ${clusterCount} clusters`);

  for (let file = 0; file * perFile < objects; file += 1) {
    const docs = [];
    for (let index = file * perFile; index < Math.min(objects, (file + 1) * perFile); index += 1) docs.push(stringify(configMap('scale', index)));
    await repo.write(`objects/${file}.yaml`, docs.join('---\n'));
  }
  const pushed = performance.now();
  const cpuAtPush = await cpuSeconds(pid);
  await repo.commitAndPush(`${objects} ConfigMaps`);
  let peakSeen = idle.rss;
  await waitFor(`${objects} ConfigMaps on every cluster`, async () => {
    peakSeen = Math.max(peakSeen, (await procStatus(pid)).rss);
    const counts = await Promise.all(clients.map((client) => countOn(client, 'scale')));
    say(`  on the clusters: ${counts.join(', ')} of ${objects}; RSS ${mib(peakSeen).toFixed(0)} MiB at most so far`);
    return counts.every((count) => count >= objects);
  }, 3 * 3_600_000, 5_000);
  const convergeMs = performance.now() - pushed;
  const convergeCpu = (await cpuSeconds(pid)) - cpuAtPush;
  const converged = await procStatus(pid);
  const convergedSplit = await memorySplit(httpPort);
  const redisConverged = await usedMemory(redisClient);
  say(`converged: RSS ${mib(converged.rss).toFixed(0)} MiB (${splitText(convergedSplit)})`);

  // The steady state: one resync interval after the first resync of every object began.
  say(`converged in ${Math.round(convergeMs)} ms; waiting one resync interval (${resyncS} s), then measuring the next one${scrapeS > 0 ? `, /metrics scraped every ${scrapeS} s` : ''}`);
  const scraper = scrapeS > 0 ? scrapeEvery(httpPort, scrapeS) : undefined;
  await new Promise((resolve) => setTimeout(resolve, resyncS * 1000));
  const marks = await Promise.all(planes.map((plane) => markAuditLog(plane.auditLogPath!)));
  const looksBefore = await lookAgains(httpPort);
  const scrapesBefore = scraper?.count() ?? 0;
  const cpuBefore = await cpuSeconds(pid);
  await new Promise((resolve) => setTimeout(resolve, resyncS * 1000));
  const cpu = (await cpuSeconds(pid)) - cpuBefore;
  const scrapes = (scraper?.stop() ?? 0) - scrapesBefore;
  const looks = subtract(await lookAgains(httpPort), looksBefore);
  say(`in the measured interval: ${scrapes} scrapes of /metrics, ${looks.runs} pipeline runs, ${looks.unchangedChecks} unchanged objects answered by the resync sweep, ${looks.changedChecks} given a job`);
  const requests = (await Promise.all(planes.map((plane, index) => readAuditLog(plane.auditLogPath!, marks[index], kubeUserAgent)))).flat();
  // Beyond the watches: a watch is one long request the audit log writes when it ends.
  const beyondWatches = requests.filter((request) => request.verb !== 'watch');
  const perMinutePerCluster = (beyondWatches.length / resyncS) * 60 / clusterCount;
  const cpuPerMinute = (cpu / resyncS) * 60;
  say(`steady state: ${perMinutePerCluster.toFixed(1)} requests per minute per cluster beyond the watches (${clusterCount} clusters), ${cpuPerMinute.toFixed(2)} CPU s per minute`);
  for (const [what, count] of Object.entries(countByPath(beyondWatches)).sort((a, b) => b[1] - a[1]).slice(0, 12)) say(`  ${count} × ${what}`);
  const spread = await scheduleSpread(redisClient, resyncS);
  say(`resync schedule: ${spread.scheduled} objects, due over the next interval at most ${spread.maxPerSecond} in one second (${spread.meanPerSecond.toFixed(1)} on average; all at once would be ${spread.scheduled})`);
  // The product's default interval (apps/reconciler/src/config.ts, resyncIntervalMs) makes the look-agains
  // default / resyncS times rarer; everything else (watches, health probes, polls) stays. Between these bounds:
  const looksPerMinute = ((looks.runs + looks.unchangedChecks) / resyncS) * 60;
  const lookShare = looksPerMinute * (1 - Math.min(1, resyncS / defaultResyncS)) * (cpu / Math.max(1, looks.runs + looks.unchangedChecks));
  const atDefault = { cpuPerMinuteAtMost: cpuPerMinute, cpuPerMinuteAtLeast: Math.max(0, cpuPerMinute - lookShare), lookAgainsPerMinute: looksPerMinute * Math.min(1, resyncS / defaultResyncS) };
  say(`at the default resync interval (${defaultResyncS} s): ${atDefault.lookAgainsPerMinute.toFixed(0)} look-agains per minute, ${atDefault.cpuPerMinuteAtLeast.toFixed(2)}–${atDefault.cpuPerMinuteAtMost.toFixed(2)} CPU s per minute (the look-agains' share taken out at this run's CPU per look-again, or not at all), the same requests per minute (none is per object)`);
  const steady = await procStatus(pid);
  const steadySplit = await memorySplit(httpPort);
  say(`steady: RSS ${mib(steady.rss).toFixed(0)} MiB (${splitText(steadySplit)})`);
  if (cpuProfileDir) {
    // Stopped now, the profile ends with the steady state; the drain may take the workers' 20 s.
    const steadyS = Math.round((performance.now() - pushed - convergeMs) / 1000);
    await stopProcess(child, 60_000);
    say(`CPU profile written to ${cpuProfileDir}; its last ${steadyS} s are after convergence (the last ${resyncS} s the measured interval)`);
  }

  say('baseline: one list of the same objects per cluster');
  const listStarted = performance.now();
  for (const client of clients) {
    const { status } = await client.get('/api/v1/configmaps?labelSelector=bench%3Dscale');
    if (status !== 200) throw new Error(`listing ConfigMaps answered ${status}`);
  }
  const listS = (performance.now() - listStarted) / 1000;

  say(`baseline: raw server-side apply of the same ${objects} objects to the ${clusterCount} clusters, concurrency ${concurrency}`);
  for (const client of clients) {
    for (let n = 0; n < namespaces; n += 1) await client.send('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `raw-${n}` } }));
  }
  const rawStarted = performance.now();
  await pool(clients, clients.length, async (client) => {
    await pool(Array.from({ length: objects }, (_, index) => index), concurrency, async (index) => {
      const body = configMap('raw', index);
      const path = `/api/v1/namespaces/raw-${index % namespaces}/configmaps/cm-${index}?fieldManager=raw&force=true`;
      const status = await client.send('PATCH', path, JSON.stringify(body), 'application/apply-patch+yaml');
      if (status >= 300) throw new Error(`raw apply of ${path} answered ${status}`);
    });
  });
  const rawMs = performance.now() - rawStarted;

  const total = objects * clusterCount;
  printFigures('scale', [
    figure(`time until ${objects} objects are on all ${clusterCount} clusters (${total} applies)`, 'ms', convergeMs, `raw SSA of the same objects to the same clusters, concurrency ${concurrency}`, rawMs),
    figure(`reconciler idle RSS after start, ${clusterCount} clusters`, 'MiB', mib(idle.rss), 'a bare node -e', mib(bareRss)),
    figure(`reconciler peak RSS, ${objects} objects × ${clusterCount} clusters`, 'MiB', mib(Math.max(converged.peak, steady.peak, peakSeen)), 'a bare node -e', mib(bareRss)),
    figure(`reconciler steady RSS once converged, ${objects} × ${clusterCount}`, 'MiB', mib(steady.rss), 'a bare node -e', mib(bareRss)),
    figure(`Redis memory once converged, ${objects} × ${clusterCount}`, 'MiB', redisConverged / 2 ** 20, 'Redis before the push', redisIdle / 2 ** 20),
    figure(`API requests per resync interval (${resyncS} s), ${total} unchanged objects`, 'requests', requests.length, 'one list per cluster (kubectl get -A)', clusterCount),
    figure(`reconciler CPU per resync interval (${resyncS} s) once converged`, 's', cpu, 'wall time of one list of the same objects per cluster', listS),
    figure(`API requests per minute per cluster once converged, beyond the watches`, 'requests', perMinutePerCluster, 'one list per cluster (kubectl get -A)', 1),
    figure(`reconciler CPU per minute once converged (of a loaded machine: CPU s, not wall time)`, 's', cpuPerMinute, 'wall time of one list of the same objects per cluster', listS),
    figure(`reconciler CPU per minute once converged at the default ${defaultResyncS} s interval, at most`, 's', atDefault.cpuPerMinuteAtMost, 'wall time of one list of the same objects per cluster', listS),
    figure(`resync look-agains due in the busiest second of an interval, ${total} objects`, 'objects', spread.maxPerSecond, 'all of them at once', spread.scheduled),
  ], {
    objects, clusters: clusterCount, resyncIntervalS: resyncS, concurrency, reconcilerRun: values['from-source'] ? 'tsx' : 'bundle', nodeFlags,
    metricsScrapes: { everyS: scrapeS, whileSteady: scrapes },
    requestsPerObjectPerResync: Math.round((requests.length / total) * 100) / 100,
    steadyRequestsByKind: countByKind(requests),
    steadyRequestsByPath: countByPath(beyondWatches),
    cpuSecondsPerMinute: Math.round((cpu / resyncS) * 60 * 100) / 100,
    // Look-agains done in the measured interval: pipeline runs, and objects the resync sweep answered without one.
    lookAgains: looks,
    atDefaultResyncInterval: { resyncIntervalS: defaultResyncS, ...atDefault },
    resyncSchedule: spread,
    cpuMsPerLookAgain: Math.round((cpu * 1000 / Math.max(1, looks.runs + looks.unchangedChecks)) * 1000) / 1000,
    // CPU the reconciler spent from the push until converged: with the same objects, what a V8 flag costs.
    convergeCpuSeconds: Math.round(convergeCpu * 10) / 10,
    memoryMiB: { idle: idleSplit, converged: convergedSplit, steady: steadySplit },
  });
} catch (error) {
  say(`failed: ${messageOf(error)}; reconciler stderr: ${stderrTail}`);
  process.exitCode = 1;
} finally {
  await stopProcess(child);
  redisClient.disconnect();
  for (const client of clients) client.close();
  await git.stop();
  await redis.stop();
  await Promise.all(planes.map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
  await rm(bundleDir, { recursive: true, force: true });
}

/** lookAgains reads from the reconciler's /metrics how many pipeline runs it made and how many due resyncs its sweep answered. */
async function lookAgains(port: number): Promise<{ runs: number; unchangedChecks: number; changedChecks: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((total, match) => total + Number(match[1]), 0);
  return {
    runs: sum(/^tidemark_reconcile_duration_seconds_count\{[^}]*\} ([0-9.e+]+)$/gm),
    unchangedChecks: sum(/^tidemark_resync_checks_total\{[^}]*result="unchanged"[^}]*\} ([0-9.e+]+)$/gm),
    changedChecks: sum(/^tidemark_resync_checks_total\{[^}]*result="changed"[^}]*\} ([0-9.e+]+)$/gm),
  };
}

/** scrapeEvery fetches /metrics every `seconds` as Prometheus would, until stopped; count and stop say how many it fetched so far. */
function scrapeEvery(port: number, seconds: number): { count(): number; stop(): number } {
  let scrapes = 0;
  const timer = setInterval(() => {
    void fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text()).then(() => { scrapes += 1; }, () => undefined);
  }, seconds * 1000);
  timer.unref();
  return { count: () => scrapes, stop: () => { clearInterval(timer); return scrapes; } };
}

/** countByPath counts requests by verb and path, names and query left out: what sent them. */
function countByPath(requests: readonly AuditedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) {
    const path = request.requestURI.split('?')[0]!.replace(/\/namespaces\/[^/]+/, '/namespaces/*').replace(new RegExp(`(/${request.resource.split('/')[0]})/[^/]+`), '$1/*');
    const what = `${request.verb} ${path}`;
    counts[what] = (counts[what] ?? 0) + 1;
  }
  return counts;
}

function subtract<T extends Record<string, number>>(after: T, before: T): T {
  return Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - (before[key] ?? 0)])) as T;
}

function splitText(split: Record<string, number>): string {
  return Object.entries(split).map(([key, value]) => `${key} ${value}`).join(', ');
}

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
}

/**
 * scheduleSpread reads every cluster's resync schedule (sorted sets of due times) and counts the
 * objects due in each second of the next interval: how evenly the look-agains are spread.
 */
async function scheduleSpread(client: Redis, intervalS: number): Promise<{ scheduled: number; maxPerSecond: number; meanPerSecond: number }> {
  const keys = await client.keys('scale:*:resync-due');
  const perSecond = new Map<number, number>();
  const from = Date.now();
  let scheduled = 0;
  for (const key of keys) {
    const scores = (await client.zrange(key, 0, -1, 'WITHSCORES')).filter((_, index) => index % 2 === 1).map(Number);
    scheduled += scores.length;
    for (const due of scores) {
      if (due >= from + intervalS * 1000) continue;
      const second = Math.max(0, Math.floor((due - from) / 1000));
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
  }
  const counts = [...perSecond.values()];
  return { scheduled, maxPerSecond: Math.max(0, ...counts), meanPerSecond: counts.reduce((a, b) => a + b, 0) / intervalS };
}
