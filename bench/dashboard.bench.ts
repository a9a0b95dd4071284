// Dashboard benchmark: the objects page for 10,000 objects × 3 clusters, rendered server-side with
// pagination and auth, against a static page of the same byte size served by fastify in the same
// process, so the cost of rendering shows as a ratio (requests/s and p50/p99 latency). Each page and
// the static page are loaded one after the other, alternating which goes first, for --rounds rounds;
// each ratio is taken within a round and the median over rounds is reported.
// Then an A/B on the same Redis and records: the previous release's dashboard (53f8326, before the
// pictures) and this one, each bundled and run as a process of its own (so neither shares an event
// loop with the load generator), the same pages, alternating for --rounds rounds so load drift on a
// shared machine hits both alike; each ratio is the median over the rounds.
// --previous COMMIT compares with another commit instead (say main before a change: after/before in one run).
// --cpu-prof DIR has this checkout's dashboard process of the A/B write a V8 CPU profile into DIR when
// it stops (summarise it with `npx tsx bench/support/cpu-profile-window.ts DIR/*.cpuprofile`).
//   npx tsx bench/dashboard.bench.ts [--objects 10000] [--seconds 5] [--concurrency 16] [--rounds 3] [--no-resources] [--no-previous] [--previous COMMIT] [--cpu-prof DIR]
// WebApp records carry the objects they applied (3 each), which the matrix shows as rows under them.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import type { ObjectStatus } from '@tidemark/contracts';
import { ReconcileQueues } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { startRedis } from '@tidemark/testing';
import { buildDashboard } from '../apps/dashboard/src/build-app';
import { startCurrentDashboard, startPreviousDashboard } from './support/previous-dashboard';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    // Records as older reconcilers wrote them, without what a WebApp applied, to compare with earlier runs.
    'no-resources': { type: 'boolean', default: false },
    // Skip the A/B against the previous release's dashboard (it is built from Git on first use).
    'no-previous': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    // The commit whose dashboard the A/B compares with, instead of the previous release.
    previous: { type: 'string' },
    // A folder for a CPU profile of this checkout's dashboard process in the A/B.
    'cpu-prof': { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const objectCount = Number(values.objects);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const withResources = !values['no-resources'];
const clusters = ['east', 'west', 'edge'];
const token = 'bench-token-0123456789abcdef';
const kinds = ['ConfigMap', 'Deployment', 'Service', 'WebApp'];

interface LoadResult { requests: number; rps: number; p50Ms: number; p99Ms: number; bytes: number }

function statusOf(cluster: string, index: number): ObjectStatus {
  const kind = kinds[index % kinds.length]!;
  const group = kind === 'WebApp' ? 'tidemark.dev' : kind === 'Deployment' ? 'apps' : 'core';
  const namespace = `team-${index % 40}`;
  const name = `object-${String(index).padStart(5, '0')}`;
  const stalled = index % 97 === 0 && cluster === 'edge';
  const condition = (type: string, status: 'True' | 'False') => ({ type, status, observedGeneration: 3, reason: stalled ? 'ValidationFailed' : 'ReconciliationSucceeded', message: 'Applied.', lastTransitionTime: new Date().toISOString() });
  return {
    cluster, objectKey: `${group}/${kind}/${namespace}/${name}`, source: 'bench', path: `${namespace}/${name}.yaml`, line: 1,
    apiVersion: kind === 'WebApp' ? 'tidemark.dev/v1alpha1' : 'v1', kind, namespace, name, generation: 3, observedGeneration: 3,
    lastAppliedRevision: 'f'.repeat(40), lastAttemptedRevision: 'f'.repeat(40),
    conditions: [condition('Ready', stalled ? 'False' : 'True'), condition('Reconciling', 'False'), condition('Stalled', stalled ? 'True' : 'False')],
    inventory: [{ apiVersion: 'v1', kind: 'Service', namespace, name }], updatedAt: new Date().toISOString(),
    // A WebApp's record lists what it applied, as the pipeline writes it: the matrix gives each a row of its own.
    ...(kind === 'WebApp' && withResources ? { resources: ['Deployment', 'Service', 'ServiceAccount'].map((rendered) => ({
      apiVersion: rendered === 'Deployment' ? 'apps/v1' : 'v1', kind: rendered, namespace, name, uid: `${cluster}-${index}-${rendered}`, action: 'unchanged' as const, health: 'Ready' as const,
    })) } : {}),
  };
}

async function seed(store: StatusStore): Promise<void> {
  const all = clusters.flatMap((cluster) => Array.from({ length: objectCount }, (_, index) => statusOf(cluster, index)));
  for (let start = 0; start < all.length; start += 1000) await Promise.all(all.slice(start, start + 1000).map((status) => store.put(status)));
}

function get(agent: Agent, url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => { bytes += chunk.length; });
      response.on('end', () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url.pathname}: HTTP ${response.statusCode}`))));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** load keeps `concurrency` requests in flight for a bounded time and returns throughput and latency. */
async function load(target: URL | (() => URL), headers: Record<string, string>, durationMs: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let bytes = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      bytes = await get(agent, typeof target === 'function' ? target() : target, headers);
      latencies.push(performance.now() - sent);
    }
  }));
  const elapsed = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const rank = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? 0;
  return { requests: latencies.length, rps: Math.round((latencies.length / elapsed) * 1000), p50Ms: round(rank(0.5)), p99Ms: round(rank(0.99)), bytes };
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * liveUpdateLatency writes one status change at a time and times it until the dashboard's event
 * stream carries it; the baseline is a bare Redis pub/sub round trip on the same server.
 */
async function liveUpdateLatency(base: URL, headers: Record<string, string>, samples: number): Promise<{ live: number[]; pubsub: number[] }> {
  const response = await fetch(new URL('/events', base), { headers });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const live: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const record = { ...statusOf('east', index), updatedAt: new Date().toISOString(), generation: 1000 + index };
    const sent = performance.now();
    await store.put(record);
    let text = '';
    while (!text.includes(`east|${record.objectKey}`)) text += decoder.decode((await reader.read()).value);
    live.push(performance.now() - sent);
  }
  await reader.cancel();
  const listener = new Redis(testRedis.url);
  const channel = `${prefix}:bench-pubsub`;
  await listener.subscribe(channel);
  const pubsub: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const sent = performance.now();
    const arrived = new Promise<void>((resolve) => listener.once('message', () => resolve()));
    await redis.publish(channel, String(index));
    await arrived;
    pubsub.push(performance.now() - sent);
  }
  listener.disconnect();
  return { live: live.sort((a, b) => a - b), pubsub: pubsub.sort((a, b) => a - b) };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;

/** StaticComparison is one page against the static page: medians over rounds, and the req/s ratio of each round. */
interface StaticComparison { case: string; rps: number; staticRps: number; p50Ms: number; p99Ms: number; ratio: { rps: number; p50: number; p99: number }; rounds: number[] }

/**
 * alternateWithStatic loads each page and the static page of the same bytes one after the other,
 * for --rounds rounds, alternating which goes first, so load drift on a shared machine hits both
 * alike; each ratio is taken within a round, then the median over rounds.
 */
async function alternateWithStatic(cases: ReadonlyArray<readonly [string, URL | (() => URL)]>, staticUrl: URL, auth: Record<string, string>): Promise<StaticComparison[]> {
  const durationMs = seconds * 1000;
  const results = cases.map(() => [] as { page: LoadResult; static: LoadResult }[]);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, [, target]] of cases.entries()) {
      const [page, baseline] = round % 2 === 0
        ? await load(target, auth, durationMs).then(async (page) => [page, await load(staticUrl, {}, durationMs)] as const)
        : await load(staticUrl, {}, durationMs).then(async (baseline) => [await load(target, auth, durationMs), baseline] as const);
      results[index]!.push({ page, static: baseline });
    }
  }
  return cases.map(([name], index) => {
    const measured = results[index]!;
    const of = (pick: (entry: { page: LoadResult; static: LoadResult }) => number) => round(median(measured.map(pick)));
    return {
      case: name, rps: of((entry) => entry.page.rps), staticRps: of((entry) => entry.static.rps), p50Ms: of((entry) => entry.page.p50Ms), p99Ms: of((entry) => entry.page.p99Ms),
      ratio: { rps: of((entry) => entry.page.rps / entry.static.rps), p50: of((entry) => entry.page.p50Ms / entry.static.p50Ms), p99: of((entry) => entry.page.p99Ms / entry.static.p99Ms) },
      rounds: measured.map((entry) => round(entry.page.rps / entry.static.rps)),
    };
  });
}

/**
 * compareWithPreviousRelease loads the same pages from the previous release's dashboard and this
 * one, both bundled and run as processes of their own on the same records, alternating which goes
 * first, and prints this/previous per page.
 */
async function compareWithPreviousRelease(auth: Record<string, string>): Promise<void> {
  const previous = await startPreviousDashboard({ redisUrl: testRedis.url, prefix, clusters, token }, previousCommit);
  const currentProcess = await startCurrentDashboard({ redisUrl: testRedis.url, prefix, clusters, token, ...(values['cpu-prof'] ? { cpuProfileDir: resolve(values['cpu-prof']) } : {}) }).catch(async (error: unknown) => {
    await previous.stop();
    throw error;
  });
  const current = currentProcess.base;
  const loadBefore = loadavg()[0]!;
  try {
    // The last case asks for another page each time: more pages than the page memo keeps, so each
    // request renders (from rows kept per object), as many viewers on different pages would.
    const webAppPages = Math.max(1, Math.min(50, Math.floor(objectCount / 4 / 50)));
    let webAppPage = 0;
    const paths = [['objects page 1', '/objects'], ['objects middle page', `/objects?page=${Math.ceil(objectCount / 100)}`],
      ['objects filtered', '/objects?condition=Stalled&q=object-0'], ['WebApps only', '/objects?kind=WebApp'],
      [`WebApps, pages 1–${webAppPages} in turn`, () => `/objects?kind=WebApp&page=${(webAppPage++ % webAppPages) + 1}`]] as const;
    const results = paths.map(() => ({ ratios: [] as { rps: number; p50: number; p99: number }[], bytes: { previous: 0, current: 0 } }));
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, [, path]] of paths.entries()) {
        const measure = (base: URL, ms = seconds * 1000) => load(typeof path === 'string' ? new URL(path, base) : () => new URL(path(), base), auth, ms);
        // Warm both (JIT, the previous one's caches, sockets) before the first round.
        if (round === 0) await Promise.all([measure(previous.base, 1000), measure(current, 1000)]);
        const [old, now] = round % 2 === 0
          ? [await measure(previous.base), await measure(current)]
          : await measure(current).then(async (now) => [await measure(previous.base), now] as const);
        results[index]!.ratios.push({ rps: now.rps / old.rps, p50: now.p50Ms / old.p50Ms, p99: now.p99Ms / old.p99Ms });
        results[index]!.bytes = { previous: old.bytes, current: now.bytes };
      }
    }
    console.log(`A/B against ${previousCommit ? 'the dashboard of' : 'the previous release\'s dashboard'} (${previous.commit}), both bundled and run as processes of their own, same Redis and records, ${rounds} alternating rounds of ${seconds} s; this/previous, median over rounds`);
    console.log('case                          req/s   p50    p99    bytes previous → this   req/s ratio per round');
    const summary = paths.map(([name], index) => {
      const { ratios, bytes } = results[index]!;
      const row = { case: name, rps: round(median(ratios.map((ratio) => ratio.rps))), p50: round(median(ratios.map((ratio) => ratio.p50))), p99: round(median(ratios.map((ratio) => ratio.p99))), bytes, rounds: ratios.map((ratio) => round(ratio.rps)) };
      console.log(`${name.padEnd(28)} ${String(row.rps).padStart(6)} ${String(row.p50).padStart(5)} ${String(row.p99).padStart(6)}   ${String(bytes.previous).padStart(8)} → ${String(bytes.current).padEnd(8)}   ${row.rounds.join(' ')}`);
      return row;
    });
    const loadAverage = { before: round(loadBefore), after: round(loadavg()[0]!) };
    console.log(`load average (1 min) ${loadAverage.before} before the A/B, ${loadAverage.after} after`);
    console.log(JSON.stringify({ bench: 'dashboard-objects-page-ab', previous: previous.commit, separateProcesses: true, objects: objectCount, withResources, rounds, seconds, concurrency, loadAverage, cases: summary }));
  } finally {
    await Promise.all([previous.stop(), currentProcess.stop()]);
  }
}

// A branch name resolves to its commit id now: builds are kept by commit.
const previousCommit = values.previous === undefined ? undefined : execFileSync('git', ['rev-parse', '--short=12', `${values.previous}^{commit}`], { encoding: 'utf8' }).trim();
const testRedis = await startRedis();
const prefix = `bench-${randomUUID().slice(0, 8)}`;
const redis = new Redis(testRedis.url);
const subscriber = new Redis(testRedis.url);
const store = new StatusStore({ redis, prefix });
const queues = new ReconcileQueues({ connection: redis, prefix, clusters });
const dashboard = await buildDashboard({
  statusStore: store, queues, redis, subscriber, clusters,
  auth: { tokens: [{ name: 'bench', role: 'viewer', token }], sessionSecret: 'bench-session-secret-of-32-characters!!' },
});
const staticServer = Fastify({ logger: false });
try {
  const seedStarted = performance.now();
  await seed(store);
  const seedMs = Math.round(performance.now() - seedStarted);
  await queues.start();
  const loadStarted = performance.now();
  await dashboard.ready();
  const cacheLoadMs = Math.round(performance.now() - loadStarted);
  const dashboardBase = new URL(await dashboard.listen({ host: '127.0.0.1', port: 0 }));
  const auth = { authorization: `Bearer ${token}` };

  const pages = {
    first: new URL('/objects', dashboardBase),
    middle: new URL(`/objects?page=${Math.ceil(objectCount / 100)}`, dashboardBase),
    filtered: new URL('/objects?condition=Stalled&q=object-0', dashboardBase),
  };
  const size = await get(new Agent(), pages.first, auth);
  const body = Buffer.alloc(size, 'x');
  staticServer.get('/static', async (_request, reply) => reply.type('text/html; charset=utf-8').send(body));
  const staticUrl = new URL('/static', await staticServer.listen({ host: '127.0.0.1', port: 0 }));

  // Warm both servers (JIT, sockets) before measuring.
  await load(staticUrl, {}, 1000);
  await load(pages.first, auth, 1000);
  // A new text filter per request misses the per-version memo: every request scans all rows.
  let variant = 0;
  const cases = [['objects page 1', pages.first], ['objects middle page', pages.middle], ['objects filtered (repeat)', pages.filtered],
    ['objects filtered (cold)', () => new URL(`/objects?condition=Stalled&q=team-${variant++ % 40}/`, dashboardBase)]] as const;
  const loadBefore = loadavg()[0]!;
  const vsStatic = await alternateWithStatic(cases, staticUrl, auth);

  const latency = await liveUpdateLatency(dashboardBase, auth, 100);
  const rankOf = (sorted: number[], p: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0);
  const liveUpdate = { p50Ms: rankOf(latency.live, 0.5), p99Ms: rankOf(latency.live, 0.99) };
  const pubsub = { p50Ms: rankOf(latency.pubsub, 0.5), p99Ms: rankOf(latency.pubsub, 0.99) };
  console.log(`live update, status write to server-sent event: p50 ${liveUpdate.p50Ms} ms, p99 ${liveUpdate.p99Ms} ms (Redis pub/sub alone: p50 ${pubsub.p50Ms} ms, p99 ${pubsub.p99Ms} ms)`);

  console.log(`objects ${objectCount} × ${clusters.length} clusters (seeded in ${seedMs} ms, cache loaded in ${cacheLoadMs} ms), page of 50 rows = ${size} bytes, ${concurrency} connections, ${rounds} rounds of ${seconds} s per case, the page and a static page of the same bytes (fastify, same process) alternating; medians over rounds`);
  console.log('case                       req/s  static req/s  p50 ms  p99 ms   vs static: req/s   p50   p99   req/s ratio per round');
  for (const result of vsStatic) {
    console.log(`${result.case.padEnd(25)} ${String(result.rps).padStart(6)} ${String(result.staticRps).padStart(13)} ${String(result.p50Ms).padStart(7)} ${String(result.p99Ms).padStart(7)}   ${String(result.ratio.rps).padStart(15)} ${String(result.ratio.p50).padStart(5)} ${String(result.ratio.p99).padStart(5)}   ${result.rounds.join(' ')}`);
  }
  const loadAverage = { before: round(loadBefore), after: round(loadavg()[0]!) };
  console.log(`load average (1 min) ${loadAverage.before} before, ${loadAverage.after} after`);
  console.log(JSON.stringify({
    bench: 'dashboard-objects-page', objects: objectCount, withResources, clusters: clusters.length, pageBytes: size, concurrency, seconds, rounds, seedMs, cacheLoadMs,
    loadAverage, cases: vsStatic, liveUpdate, pubsub,
  }));
  if (!values['no-previous']) await compareWithPreviousRelease(auth);
} finally {
  await staticServer.close();
  await dashboard.close();
  await queues.close();
  const keys = await redis.keys(`${prefix}:*`);
  for (let start = 0; start < keys.length; start += 1000) await redis.del(...keys.slice(start, start + 1000));
  redis.disconnect();
  subscriber.disconnect();
  await testRedis.stop();
}
