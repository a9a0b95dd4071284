// Pipeline apply throughput: the real reconcile() of 1,000 WebApps (five objects each with the
// CR) against one API server, beside the raw server-side-apply ceiling of that server measured
// in the same run: the very PATCHes the pipeline sent, replayed by a minimal client with the same
// concurrency into fresh namespaces.
// Then the steady state: a resync of the same unchanged WebApps, beside one raw GET of every
// object they hold. Requests per WebApp are counted from the API server's audit log, the watch
// cache's own lists and watches included. `--cache off` runs without the watch cache (every read a
// GET), for a before/after on one machine; with it, the cache's heap is measured once converged.
// WebApps are written at the storage version (v1beta1), as a user writes them today; `--version
// v1alpha1` writes the deprecated version, which sends every request for them (the applies, the
// status writes, the watch's events) through the conversion webhook, pipeline and baseline alike.
// (At either version the API server converts each written WebApp once more, for the cache it keeps
// of every served version.)
// The true ceiling of a run: every request the pipeline must send per WebApp on first creation
// (its five applies, the CR's status write, its Event), as recorded from the pipeline's own
// KubeClient in the same run, replayed by the same minimal client run by run, each run's requests
// in the pipeline's order and overlap (the rendered objects together, as it sends them).
// `--crd-versions one` installs every built-in CRD serving its storage version alone (no
// conversion webhook), to price the webhook; the default serves every version, as Tidemark does.
// Both sides' CPU is measured (the API server's from /proc, this process's), and the pipeline's
// other writes are replayed raw to price each: its status writes, its Events, and the watch cache's
// watches. On shared cores the rate ratio cannot pass the CPU ratio; the API server's share is
// the part no reconciler speed can save.
// Tidemark's own CPU: this process's CPU per object in the pipeline's run (reconcile and the watch
// cache) beside the minimal client's in the ceiling's replay; and per one-object push (`--pushes`
// WebApps changed one at a time, once converged). `--cpu-prof <dir>` writes the V8 CPU profile of
// the first creation and of the pushes there (read them with bench/support/cpu-profile-window.ts).
//   npx tsx bench/pipeline.bench.ts [--webapps 1000] [--concurrency 16] [--cache on|off] [--version v1beta1|v1alpha1] [--crd-versions all|one] [--pushes 50] [--cpu-prof <dir>] [--parts on|off] [--webhook in-process|thread|process]
// `--parts off` skips pricing the status writes, Events and watches (the last phases), for a quicker CPU run.
// The conversion webhook's calls in the pipeline's and the ceiling's phases are read from the API
// server's /metrics (with all versions served: one per create and per status write of a WebApp,
// on both sides, for the API server's cache of the other version; they trail the writes, none
// is on a request's path). `--webhook in-process|thread|process` serves the webhook on this
// process's event loop (the default, as the reconciler does by default), from a worker thread
// (conversionWebhook.thread), or from a process of its own whose CPU per call is then reported.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { ClusterConnection, applyChangeSet, applyObject, watchObjects } from '@tidemark/cluster';
import { messageOf, type KubernetesManifest, type ReconcileJob } from '@tidemark/contracts';
import { createDefaultRegistry } from '@tidemark/kinds';
import { reconcile, type DesiredObject, type PipelineDependencies } from '@tidemark/pipeline';
import { StatusStore } from '@tidemark/status-store';
import { startControlPlane, startRedis } from '@tidemark/testing';
import { crdInstallerManager, installBuiltinCrds } from '@tidemark/conversion';
import { startTestConversionWebhook, startTestConversionWebhookThread } from '../test/support/conversion-webhook';
import { countedRequests, perObject } from './support/counted-requests';
import { cpuDuring, cpuSeconds, type PhaseCpu } from './support/process-cpu';
import { startConversionWebhookProcess } from './support/conversion-webhook-process';
import { profiledDuring } from './support/in-process-profile';
import { figure, pool, printFigures, say } from './support/figures';
import { RawClient, recordRequests, runsOf, type RecordedApply, type RecordedRun } from './support/raw-apply';
import { webApp, type WebAppVersion } from './support/webapps';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startOwnedWatches } from '@tidemark/watches';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { callsBetween, conversionCalls, totalCalls } from './support/conversion-calls';

setFlagsFromString('--expose-gc');

const { values } = parseArgs({ options: { webapps: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '16' }, cache: { type: 'string', default: 'on' }, version: { type: 'string', default: 'v1beta1' }, 'crd-versions': { type: 'string', default: 'all' }, pushes: { type: 'string', default: '50' }, 'cpu-prof': { type: 'string' }, parts: { type: 'string', default: 'on' }, webhook: { type: 'string', default: 'in-process' } } });
if (values.webhook !== 'in-process' && values.webhook !== 'thread' && values.webhook !== 'process') throw new Error(`--webhook must be in-process, thread or process, not ${values.webhook}`);
if (values.parts !== 'on' && values.parts !== 'off') throw new Error(`--parts must be on or off, not ${values.parts}`);
if (values.version !== 'v1beta1' && values.version !== 'v1alpha1') throw new Error(`--version must be v1beta1 or v1alpha1, not ${values.version}`);
const version: WebAppVersion = values.version;
if (values['crd-versions'] !== 'all' && values['crd-versions'] !== 'one') throw new Error(`--crd-versions must be all or one, not ${values['crd-versions']}`);
const oneVersion = values['crd-versions'] === 'one';
if (oneVersion && version !== 'v1beta1') throw new Error('--crd-versions one serves the storage version alone: WebApps must be written as v1beta1');
if (values.cache !== 'on' && values.cache !== 'off') throw new Error(`--cache must be on or off, not ${values.cache}`);
const cached = values.cache === 'on';
const webapps = Number(values.webapps);
const concurrency = Number(values.concurrency);
const pushes = Math.min(Number(values.pushes), webapps);
const profileDir = values['cpu-prof'];
const namespaces = 10;
const revision = 'b'.repeat(40);

let recording = false;
/** The WebApp whose reconcile sent a request, to replay each run's requests as that run sent them. */
const currentRun = new AsyncLocalStorage<string>();
const recorded = recordRequests(() => recording, () => currentRun.getStore());
say(`starting a control plane and Redis`);
const [plane, redis] = await Promise.all([startControlPlane({ name: `bench-pipeline-${randomUUID().slice(0, 6)}`, auditLog: true }), startRedis()]);
const connection = ClusterConnection.connect({ cluster: 'bench', kubeconfig: plane.kubeconfig, fieldManager: 'tidemark' });
const apiServerPid = plane.pid ?? thrown(new Error(`control plane ${plane.name} has no running API server process to measure`));
const client = new Redis(redis.url);
const desired = new Map<string, DesiredObject>();
const kinds = createDefaultRegistry();
const statusStore = new StatusStore({ redis: client, prefix: 'bench' });
// The watch cache as the reconciler runs it: the owned-object watches fill it (drift wakes go nowhere here).
const watches = cached ? startOwnedWatches({ clusters: new Map([['bench', connection]]), statusStore, redis: client, queues: { enqueue: async () => undefined } }) : undefined;
const deps: PipelineDependencies = {
  connectionFor: () => connection,
  actionsConnectionFor: () => connection.asManager('tidemark-actions'),
  desired: { readObject: async (_source, _revision, objectKey) => desired.get(objectKey) },
  kinds,
  statusStore,
  ...(watches ? { cacheFor: (cluster: string) => watches.cacheFor(cluster) } : {}),
};

/**
 * cacheSettled waits until the watch cache holds `objects` objects and then a moment more, so the
 * events of the last writes have arrived (a read the cache cannot answer yet is a GET, and counted).
 */
async function cacheSettled(objects: number): Promise<void> {
  if (!watches) return;
  await watches.ready();
  while ((watches.cacheFor('bench')?.stats().objects ?? 0) < objects) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}

/** cacheHeap is the heap the watch cache holds: the heap before and after stopping its watches (which empties it), each after a full GC. */
async function cacheHeap(): Promise<{ objects: number; heapBytes: number; bytesPerObject: number; jsonBytesPerObject: number } | undefined> {
  const cache = watches?.cacheFor('bench');
  if (!watches || !cache) return undefined;
  const { objects } = cache.stats();
  const jsonBytes = cache.sizeInJson();
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  await watches.stop();
  gc();
  const heapBytes = before - process.memoryUsage().heapUsed;
  return { objects, heapBytes, bytesPerObject: Math.round(heapBytes / Math.max(objects, 1)), jsonBytesPerObject: Math.round(jsonBytes / Math.max(objects, 1)) };
}

async function createNamespaces(prefix: string): Promise<void> {
  for (let n = 0; n < namespaces; n += 1) await applyObject(connection, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${prefix}-${n}` } } as KubernetesManifest);
}

/** Failures is how many items of a run failed, and the first distinct messages (a bench reports them, it does not crash). */
class Failures {
  count = 0;
  readonly messages = new Map<string, number>();

  add(error: unknown): void {
    this.count += 1;
    const message = messageOf(error).slice(0, 400);
    if (this.messages.size < 5 || this.messages.has(message)) this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
  }

  describe(): string[] {
    return [...this.messages].map(([message, times]) => `${times}× ${message}`);
  }
}

/** runPipeline reconciles `count` WebApps under a namespace prefix and returns the wall time in ms and what failed. */
async function runPipeline(prefix: string, count: number): Promise<{ elapsed: number; failures: Failures }> {
  await createNamespaces(prefix);
  return reconcileAll(prefix, jobsFor(prefix, count));
}

/** jobsFor: a job for each of `count` WebApps, or for the one `only` names, with its greeting. */
function jobsFor(prefix: string, count: number, reason: ReconcileJob['reason'] = 'git-change', only?: { index: number; greeting: string }): ReconcileJob[] {
  const jobs: ReconcileJob[] = [];
  for (let i = only?.index ?? 0; i < (only ? only.index + 1 : count); i += 1) {
    const object = webApp(`${prefix}-${i % namespaces}`, `app-${i}`, only?.greeting ?? 'hello', version);
    const objectKey = `tidemark.dev/WebApp/${object.metadata.namespace}/${object.metadata.name}`;
    desired.set(objectKey, { object, path: `apps/${object.metadata.namespace}.yaml` });
    jobs.push({ source: 'bench', revision, cluster: 'bench', objectKey, reason });
  }
  return jobs;
}

/** reconcileAll reconciles the jobs with the bench's concurrency; it returns the wall time in ms and what failed. */
async function reconcileAll(prefix: string, jobs: readonly ReconcileJob[]): Promise<{ elapsed: number; failures: Failures }> {
  const count = jobs.length;
  const failures = new Failures();
  const started = performance.now();
  await pool(jobs, concurrency, async (job, index) => {
    await currentRun.run(job.objectKey, () => reconcile(job, deps)).catch((error: unknown) => failures.add(error));
    if ((index + 1) % 250 === 0) say(`  ${prefix}: ${index + 1}/${count} reconciled`);
  });
  const elapsed = performance.now() - started;
  if (failures.count > 0) say(`  ${failures.count} of ${count} reconciles failed under ${prefix}: ${failures.describe().join('; ')}`);
  return { elapsed, failures };
}

/** PhaseConversions: the API server's conversion webhook calls in a phase, and what they cost. */
interface PhaseConversions {
  calls: number;
  perWebApp: number;
  /** How long the API server waited for each, on average (its own histogram). */
  msPerCall: number;
  /** With `--webhook process`, the webhook process's CPU per call. */
  webhookCpuMsPerCall?: number;
  /** This process's event loop delay while the phase ran (the webhook's answers wait behind it when it serves in-process). */
  eventLoopDelayMs: { p50: number; p99: number };
}

/**
 * withConversions runs a phase and reads what it cost the conversion webhook: the API server's
 * calls (from its /metrics, a second after the phase, as they trail its writes), the time it
 * waited for each, and this process's event loop delay meanwhile.
 */
async function withConversions<T>(label: string, work: () => Promise<T>): Promise<{ result: T; conversions: PhaseConversions }> {
  const metricsClient = await RawClient.connect(plane.kubeconfig, 1);
  try {
    const before = await conversionCalls(metricsClient);
    const webhookCpuBefore = webhookPid === undefined ? 0 : await cpuSeconds(webhookPid);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const result = await work();
    delay.disable();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const total = totalCalls(callsBetween(before, await conversionCalls(metricsClient)));
    const conversions: PhaseConversions = {
      calls: total.calls,
      perWebApp: Math.round((total.calls / webapps) * 100) / 100,
      msPerCall: Math.round((total.seconds * 1000 / Math.max(total.calls, 1)) * 10) / 10,
      ...(webhookPid === undefined ? {} : { webhookCpuMsPerCall: Math.round((((await cpuSeconds(webhookPid)) - webhookCpuBefore) * 1000 / Math.max(total.calls, 1)) * 100) / 100 }),
      eventLoopDelayMs: { p50: Math.round(delay.percentile(50) / 1e5) / 10, p99: Math.round(delay.percentile(99) / 1e5) / 10 },
    };
    say(`  conversion webhook, ${label}: ${JSON.stringify(conversions)}`);
    return { result, conversions };
  } finally {
    metricsClient.close();
  }
}

// `--webhook` (default in-process, as the reconciler serves it by default): where the conversion
// webhook runs, on this process's event loop, in a worker thread (conversionWebhook.thread), or
// in a process of its own, whose CPU is then counted apart.
const conversion = values.webhook === 'process' ? await startConversionWebhookProcess() : values.webhook === 'thread' ? await startTestConversionWebhookThread() : await startTestConversionWebhook(kinds);
const webhookPid = 'pid' in conversion ? conversion.pid : undefined;
try {
  if (oneVersion) await applyChangeSet(connection.asManager(crdInstallerManager), kinds.list().map((plugin) => storageVersionOnly(plugin.crd)));
  else await installBuiltinCrds(connection, kinds, conversion.conversion());
  say('warming up (20 WebApps, not measured)');
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const ok = await runPipeline('warm', 20).then(({ failures }) => failures.count === 0, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  say(`pipeline: ${webapps} WebApps, concurrency ${concurrency}, watch cache ${values.cache} (records the PATCHes it sends)`);
  await createNamespaces('pipe-a');
  await cacheSettled(0);
  recording = true;
  const { result: { result: { result: { elapsed: pipelineMs, failures: pipelineFailures }, cpu: pipelineCpu }, conversions: pipelineConversions }, count: created } = await countedRequests(plane, () => withConversions('pipeline', () => cpuDuring(apiServerPid, () => profiledDuring(profileFile('first-creation'), () => reconcileAll('pipe-a', jobsFor('pipe-a', webapps))))));
  recording = false;
  const patches = recorded.applies.splice(0);
  const statusApplies = recorded.statusApplies.splice(0);
  const events = recorded.events.splice(0);
  const runs = runsOf(recorded.inOrder.splice(0));
  say(`  ${patches.length} applies (${created.total} API requests in all) in ${Math.round(pipelineMs)} ms; requests: ${JSON.stringify(created.byKind)}`);

  // The steady state. The first resync after creation may still write a CR's status once (its
  // Ready message can change from "created" to "unchanged"); the second is what every later one costs.
  say(`resync: the same ${webapps} unchanged WebApps, twice (the second is measured)`);
  await cacheSettled(patches.length);
  const { count: firstResync } = await countedRequests(plane, () => reconcileAll('pipe-a', jobsFor('pipe-a', webapps, 'resync')));
  await cacheSettled(patches.length);
  const { result: { elapsed: resyncMs, failures: resyncFailures }, count: resync } = await countedRequests(plane, () => reconcileAll('pipe-a', jobsFor('pipe-a', webapps, 'resync')));
  say(`  first resync ${firstResync.total} requests ${JSON.stringify(firstResync.byKind)}; second ${resync.total} requests in ${Math.round(resyncMs)} ms ${JSON.stringify(resync.byKind)}`);
  // One-object pushes once converged: each changes one WebApp's greeting (its ConfigMap and the
  // Deployment that mounts it), reconciled alone, one after the other; replayed raw below.
  say(`pushes: ${pushes} one-object pushes, one at a time`);
  recording = true;
  const { result: { failures: pushFailures }, cpu: pushCpu } = await cpuDuring(apiServerPid, () => profiledDuring(profileFile('push'), async () => {
    const failures = new Failures();
    for (let index = 0; index < pushes; index += 1) {
      const [job] = jobsFor('pipe-a', webapps, 'git-change', { index, greeting: `push-${index}` });
      await currentRun.run(job!.objectKey, () => reconcile(job!, deps)).catch((error: unknown) => failures.add(error));
    }
    return { failures };
  }));
  recording = false;
  const pushRuns = runsOf(recorded.inOrder.splice(0));
  recorded.applies.length = recorded.statusApplies.length = recorded.events.length = 0;
  say(`raw GET: one GET of each of the ${patches.length} objects, concurrency ${concurrency}`);
  const reader = await RawClient.connect(plane.kubeconfig, concurrency);
  const getStarted = performance.now();
  const getFailures = new Failures();
  await pool(patches, concurrency, async (patch) => {
    const status = await reader.send('GET', patch.path);
    if (status !== 200) getFailures.add(new Error(`raw GET ${patch.path} answered ${status}`));
  });
  const getMs = performance.now() - getStarted;
  reader.close();
  const cacheMemory = await cacheHeap();
  if (cacheMemory) say(`  watch cache: ${cacheMemory.objects} objects, ${Math.round(cacheMemory.heapBytes / 1024)} KiB of heap (${cacheMemory.bytesPerObject} bytes per object; ${cacheMemory.jsonBytesPerObject} as JSON)`);

  // After the pipeline, so the raw client meets an API server and etcd at least as warm and as full.
  say(`raw SSA: the same ${patches.length} PATCHes by a minimal client, concurrency ${concurrency}, into fresh namespaces`);
  await createNamespaces('pipe-b');
  const raw = await RawClient.connect(plane.kubeconfig, concurrency);
  const rawFailures = new Failures();
  const { result: rawMs, cpu: rawCpu } = await cpuDuring(apiServerPid, async () => {
    const started = performance.now();
    await pool(patches, concurrency, async (patch) => raw.apply(patch, [namespaceOf(patch.path), namespaceOf(patch.path).replace('pipe-a', 'pipe-b')]).catch((error: unknown) => rawFailures.add(error)));
    return performance.now() - started;
  });
  if (rawFailures.count > 0) say(`  ${rawFailures.count} of ${patches.length} raw applies failed: ${rawFailures.describe().join('; ')}`);
  raw.close();

  // The ceiling: every request each run sent, in its order and overlap, with as many sockets as
  // KubeClient keeps (libs/cluster/src/kube-client.ts), into fresh namespaces.
  const ceilingRequests = runs.reduce((sum, run) => sum + run.flat().length, 0);
  say(`ceiling: the ${runs.length} runs' ${ceilingRequests} requests (applies, status writes, Events) by a minimal client, run by run in the pipeline's order, concurrency ${concurrency}, into pipe-e`);
  await createNamespaces('pipe-e');
  const ceilingClient = await RawClient.connect(plane.kubeconfig, 32);
  const ceilingFailures = new Failures();
  const { result: { result: ceilingMs, cpu: ceilingCpu }, conversions: ceilingConversions } = await withConversions('ceiling', () => cpuDuring(apiServerPid, async () => {
    const started = performance.now();
    await pool(runs, concurrency, (run) => replayRun(ceilingClient, run, 'pipe-e').catch((error: unknown) => ceilingFailures.add(error)));
    return performance.now() - started;
  }));
  ceilingClient.close();
  if (ceilingFailures.count > 0) say(`  ${ceilingFailures.count} of ${runs.length} raw runs failed: ${ceilingFailures.describe().join('; ')}`);

  // The pushes' required requests (applies, status writes, Events; not the dry-runs) by the same
  // minimal client, one push after the other, onto the ceiling's copies in pipe-e.
  say(`raw pushes: the ${pushRuns.length} pushes' ${pushRuns.reduce((sum, run) => sum + run.flat().length, 0)} requests, one push at a time, into pipe-e`);
  const pushClient = await RawClient.connect(plane.kubeconfig, 32);
  const rawPushFailures = new Failures();
  const { cpu: rawPushCpu } = await cpuDuring(apiServerPid, async () => {
    for (const run of pushRuns) await replayRun(pushClient, run, 'pipe-e').catch((error: unknown) => rawPushFailures.add(error));
  });
  pushClient.close();
  if (rawPushFailures.count > 0) say(`  ${rawPushFailures.count} of ${pushRuns.length} raw pushes failed: ${rawPushFailures.describe().join('; ')}`);

  const parts = values.parts === 'off' ? { statusWrites: 0, events: 0, watches: 0, failures: new Failures() } : await RawClient.connect(plane.kubeconfig, concurrency).then(async (partsClient) => {
    try {
      return await apiServerParts(partsClient, statusApplies, events, patches);
    } finally {
      partsClient.close();
    }
  });

  const pipelineRate = patches.length / (pipelineMs / 1000);
  const rawRate = patches.length / (rawMs / 1000);
  const ceilingRate = patches.length / (ceilingMs / 1000);
  const crdVersions = oneVersion ? ', CRDs serving one version (no conversion webhook)' : '';
  say(`  CPU: pipeline ${pipelineCpu.apiServer.toFixed(1)} s API server + ${pipelineCpu.self.toFixed(1)} s this process; raw SSA ${rawCpu.apiServer.toFixed(1)} s + ${rawCpu.self.toFixed(1)} s. On shared cores the rate ratio cannot pass the CPU ratio, ${((rawCpu.apiServer + rawCpu.self) / (pipelineCpu.apiServer + pipelineCpu.self)).toFixed(2)}`);
  printFigures('pipeline', [
    figure(`pipeline apply throughput, ${webapps} WebApps ${version} (${patches.length} objects), concurrency ${concurrency}${crdVersions}`, 'objects/s', pipelineRate, 'raw SSA of the same PATCHes, same concurrency', rawRate),
    figure(`pipeline apply throughput, ${webapps} WebApps ${version}, against the ceiling${crdVersions}`, 'objects/s', pipelineRate, 'ceiling: every apply, status write and Event the runs sent, replayed run by run by a minimal client, same concurrency', ceilingRate),
    figure(`pipeline time for ${webapps} WebApps ${version}`, 'ms', pipelineMs, 'raw SSA time for the same objects', rawMs),
    figure(`resync of ${webapps} unchanged WebApps (${patches.length} objects)`, 'ms', resyncMs, 'one raw GET of each object, same concurrency', getMs),
    figure('API requests per WebApp, first creation', 'requests', created.total / webapps, 'objects per WebApp (one apply each)', patches.length / webapps),
    figure('API requests per WebApp, first creation, against the ceiling', 'requests', created.total / webapps, 'requests per WebApp the ceiling sends (applies, status write, Event)', ceilingRequests / webapps),
    figure('API server + bench process CPU per object, pipeline, against the ceiling', 'ms', (pipelineCpu.apiServer + pipelineCpu.self) * 1000 / patches.length, 'the same for the ceiling (API server + minimal client)', (ceilingCpu.apiServer + ceilingCpu.self) * 1000 / patches.length),
    figure('this process\'s CPU per object while it ran, pipeline (reconcile and the watch cache), against the ceiling', 'ms', pipelineCpu.work * 1000 / patches.length, 'the minimal client\'s CPU per object replaying the ceiling', ceilingCpu.work * 1000 / patches.length),
    figure(`this process's CPU per one-object push while they ran (${pushes} pushes, one at a time)`, 'ms', pushCpu.work * 1000 / Math.max(pushes, 1), 'the minimal client\'s CPU per push replaying its applies, status write and Event', rawPushCpu.work * 1000 / Math.max(pushRuns.length, 1)),
    ...cpuFigures(pipelineCpu, rawCpu, patches.length),
    ...(values.parts === 'on' ? partFigures(parts, rawCpu) : []),
  ], {
    objectsPerWebApp: patches.length / webapps,
    watchCache: values.cache,
    crdVersions: values['crd-versions'],
    webhook: values.webhook,
    // The API server's conversion webhook calls in each phase (its /metrics); both sides' writes cost the same calls.
    conversionWebhook: { pipeline: pipelineConversions, ceiling: ceilingConversions },
    ceiling: { runs: runs.length, requests: ceilingRequests, requestsPerWebApp: Math.round((ceilingRequests / webapps) * 10) / 10, stepsPerRun: Math.round((runs.reduce((sum, run) => sum + run.length, 0) / Math.max(runs.length, 1)) * 10) / 10, cpu: ceilingCpu },
    ...(cacheMemory ? { watchCacheMemory: cacheMemory } : {}),
    // Counted from the API server's audit log: Tidemark's User-Agent only, by kind.
    requestsPerWebApp: { firstCreation: perObject(created, webapps), firstResync: perObject(firstResync, webapps), resync: perObject(resync, webapps) },
    // A failed item makes its side faster than it should be: the figures are shown with what failed, not as clean.
    pipelineFailures: pipelineFailures.count, resyncFailures: resyncFailures.count, pushFailures: pushFailures.count, rawPushFailures: rawPushFailures.count, rawFailures: rawFailures.count, rawGetFailures: getFailures.count, rawReplayFailures: parts.failures.count, ceilingFailures: ceilingFailures.count,
    ...(failed(pipelineFailures, resyncFailures, pushFailures, rawPushFailures, rawFailures, getFailures, parts.failures, ceilingFailures) > 0 ? { failureMessages: [pipelineFailures, resyncFailures, pushFailures, rawPushFailures, rawFailures, getFailures, parts.failures, ceilingFailures].flatMap((entry) => entry.describe()) } : {}),
  });
  if (failed(pipelineFailures, resyncFailures, pushFailures, rawPushFailures, rawFailures, getFailures, parts.failures, ceilingFailures) > 0) process.exitCode = 1;
} finally {
  await watches?.stop();
  connection.close();
  client.disconnect();
  await redis.stop();
  await plane.stop();
  await conversion.stop();
}

/**
 * cpuFigures: the CPU each side spent per object, the API server's and this process's (the
 * reconciler's pipeline and watch cache, or the minimal client; the conversion webhook's calls
 * run here on both sides). When both share the cores, the throughput ratio is bounded by the
 * ratio of these sums; the API server's share is the part a reconciler cannot save by its own
 * speed (status writes, Events and its watch are requests the raw client does not send).
 */
function cpuFigures(pipeline: PhaseCpu, raw: PhaseCpu, objects: number) {
  const perObject = (seconds: number) => (seconds * 1000) / objects;
  return [
    figure('API server CPU per object, pipeline (applies, status writes, Events, the watch cache\'s watches)', 'ms', perObject(pipeline.apiServer), 'API server CPU per object, raw SSA', perObject(raw.apiServer)),
    figure('API server + bench process CPU per object, pipeline', 'ms', perObject(pipeline.apiServer + pipeline.self), 'the same for raw SSA (API server + minimal client)', perObject(raw.apiServer + raw.self)),
  ];
}

/** ApiServerParts: the API server CPU of each kind of request the pipeline sends besides its applies, sent raw. */
interface ApiServerParts {
  statusWrites: number;
  events: number;
  /** The watch cache's watches: raw SSA with them open less raw SSA without them. */
  watches: number;
  failures: Failures;
}

/**
 * apiServerParts replays, with the minimal client, the pipeline's other writes into the raw SSA's
 * namespaces (pipe-b): its status applies, then its Events; then the same raw SSA again into
 * fresh namespaces with a watch open on each applied kind, as the watch cache holds them (pipe-c),
 * and once more without (pipe-d), so both meet an etcd as full.
 */
async function apiServerParts(raw: RawClient, statusApplies: readonly RecordedApply[], events: readonly RecordedApply[], patches: readonly RecordedApply[]): Promise<ApiServerParts> {
  const failures = new Failures();
  const replay = (requests: readonly RecordedApply[], to: string) => cpuDuring(apiServerPid, () => pool(requests, concurrency, async (request) => {
    const namespace = namespaceOf(request.path);
    await raw.apply(request, [namespace, namespace.replace('pipe-a', to)]).catch((error: unknown) => failures.add(error));
  }));
  say(`raw status writes and Events: the pipeline's ${statusApplies.length} status applies and ${events.length} Events, replayed into pipe-b`);
  const { cpu: statusCpu } = await replay(statusApplies, 'pipe-b');
  const { cpu: eventCpu } = await replay(events, 'pipe-b');
  say(`raw SSA with watches: the same ${patches.length} PATCHes into pipe-c, with a watch open on each kind they apply`);
  await createNamespaces('pipe-c');
  const kinds = new Map(patches.map((patch) => {
    const { apiVersion, kind } = JSON.parse(patch.body) as { apiVersion: string; kind: string };
    return [`${apiVersion}|${kind}`, { apiVersion, kind }];
  }));
  const running = [...kinds.values()].map((kind) => watchObjects(connection, { ...kind, onEvent: () => undefined }));
  await Promise.all(running.map((watch) => watch.synced));
  const { cpu: watchedCpu } = await replay(patches, 'pipe-c');
  // The last events are still on their way to the watches: let them arrive before measuring the unwatched twin.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const watch of running) watch.stop();
  await createNamespaces('pipe-d');
  const { cpu: unwatchedCpu } = await replay(patches, 'pipe-d');
  if (failures.count > 0) say(`  ${failures.count} raw replays failed: ${failures.describe().join('; ')}`);
  return { statusWrites: statusCpu.apiServer, events: eventCpu.apiServer, watches: Math.max(0, watchedCpu.apiServer - unwatchedCpu.apiServer), failures };
}

/** partFigures: the API server CPU per WebApp of its status write, its Event and its share of the watches, beside that of its applies. */
function partFigures(parts: ApiServerParts, raw: PhaseCpu) {
  const perWebApp = (seconds: number) => (seconds * 1000) / webapps;
  const applies = 'API server CPU per WebApp of its five applies, raw SSA';
  return [
    figure('API server CPU per WebApp of its status write, sent raw', 'ms', perWebApp(parts.statusWrites), applies, perWebApp(raw.apiServer)),
    figure('API server CPU per WebApp of its Event, sent raw', 'ms', perWebApp(parts.events), applies, perWebApp(raw.apiServer)),
    figure('API server CPU per WebApp of the watch cache\'s watches during its applies (raw SSA watched less unwatched)', 'ms', perWebApp(parts.watches), applies, perWebApp(raw.apiServer)),
  ];
}

/** replayRun sends one run's requests into another namespace prefix, step by step, a step's requests together. */
async function replayRun(client: RawClient, run: RecordedRun, to: string): Promise<void> {
  for (const step of run) {
    await Promise.all(step.map((request) => {
      const namespace = namespaceOf(request.path);
      return client.apply(request, [namespace, namespace.replace('pipe-a', to)]);
    }));
  }
}

/** storageVersionOnly is a CRD serving its storage version alone, so no conversion webhook is needed. */
function storageVersionOnly(crd: KubernetesManifest): KubernetesManifest {
  const spec = crd.spec as { versions: { storage?: boolean }[] };
  return { ...crd, spec: { ...spec, versions: spec.versions.filter((entry) => entry.storage) } } as KubernetesManifest;
}

/** profileFile is where `--cpu-prof` writes a phase's profile, or nothing without it. */
function profileFile(phase: string): string | undefined {
  return profileDir === undefined ? undefined : `${profileDir}/pipeline-${phase}.cpuprofile`;
}

function thrown(error: Error): never {
  throw error;
}

function failed(...all: Failures[]): number {
  return all.reduce((sum, entry) => sum + entry.count, 0);
}

function namespaceOf(path: string): string {
  return /\/namespaces\/([^/]+)\//.exec(path)?.[1] ?? '';
}
