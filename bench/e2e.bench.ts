// End to end through the whole reconciler (webhook → poller → queue → workers → pipeline → SSA)
// on a full control plane: real deployment and replicaset controllers, the scheduler, and KWOK
// nodes whose pods turn Running and Ready.
//  1. `git push` of 1,000 WebApps until every one is Ready in the status store (its Deployment
//     rolled out by the real controllers). Baseline: the same objects (every distinct SSA PATCH the
//     reconciler sent) applied by a minimal client, same concurrency, on the same control plane,
//     until every one of those Deployments is available.
//  2. What the controllers cost the API server: the raw apply alone on the full control plane,
//     against the same raw apply on a bare API server started in the same run.
//  3. A one-object push announced by the webhook until it is Ready at the new revision, p50/p99.
//     Baseline: a raw server-side apply of the same ConfigMap change, p50/p99.
//     Beside it, where the milliseconds of each push went (webhook received, poll started, Git read,
//     jobs routed and enqueued, job started, API requests of the run, job finished, seen Ready).
//  4. First sync (issue 42 item 3): a fresh reconciler on a fresh bare API server with 100 WebApps
//     (4 objects each) already pushed, from its first poll until all are applied, ms per object;
//     then the same with 1,000, right after. Baseline: the 1,000's ms per object (goal ≤ 1.1×).
//     See support/first-sync.ts.
//   npx tsx bench/e2e.bench.ts [--webapps 1000] [--pushes 50] [--concurrency 16] [--only webhook|first-sync] [--bare]
//     [--first-sync-sizes 100,1000] [--rounds 1] [--cpu-prof DIR] [--same-process]
//   --only webhook runs part 3 alone; --bare runs it on a bare API server (no controllers, no nodes).
//   --only first-sync runs part 4 alone, --rounds times (each round both sizes, the median printed);
//   --cpu-prof DIR writes each first-sync run's CPU profile there (read it with support/cpu-profile-window.ts).
//   Each first-sync run starts in a fresh process of its own, as a reconciler does; --same-process runs
//   them in this one (the later runs then find the code warm, which the first, the small size, did not).
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { ClusterConnection, listObjects } from '@tidemark/cluster';
import { findCondition, type KubernetesManifest } from '@tidemark/contracts';
import { startControlPlane } from '@tidemark/testing';
import { figure, percentile, pool, printFigures, say, sortedCopy, type Figure } from './support/figures';
import { firstSyncFigures } from './support/first-sync';
import { RawClient, recordApplies, type RecordedApply } from './support/raw-apply';
import { describeBreakdowns, PushPathRecorder, type PushBreakdown } from './support/push-path-breakdown';
import { startBenchStack, type BenchStack } from './support/reconciler-stack';
import { webAppFiles } from './support/webapps';

const { values } = parseArgs({ options: {
  webapps: { type: 'string', default: '1000' }, pushes: { type: 'string', default: '50' }, concurrency: { type: 'string', default: '16' },
  only: { type: 'string', default: 'all' }, bare: { type: 'boolean', default: false },
  'first-sync-sizes': { type: 'string', default: '100,1000' }, rounds: { type: 'string', default: '1' }, 'cpu-prof': { type: 'string' }, 'same-process': { type: 'boolean', default: false },
} });
const webapps = Number(values.webapps);
const pushes = Number(values.pushes);
const concurrency = Number(values.concurrency);
if (values.only !== 'all' && values.only !== 'webhook' && values.only !== 'first-sync') throw new Error(`--only takes "webhook" (part 3 alone) or "first-sync" (part 4 alone); got "${values.only}"`);
const webhookOnly = values.only === 'webhook';
if (values.bare && !webhookOnly) throw new Error('--bare needs --only webhook: parts 1 and 2 need the controllers');
const firstSyncSizes = values['first-sync-sizes'].split(',').map(Number);
if (firstSyncSizes.length !== 2 || !firstSyncSizes.every((size) => Number.isInteger(size) && size > 0)) throw new Error(`--first-sync-sizes takes two counts of WebApps, small,large; got "${values['first-sync-sizes']}"`);
const firstSyncRounds = Number(values.rounds);
const firstSyncProfiles = values['cpu-prof'];
if (firstSyncProfiles !== undefined) await mkdir(firstSyncProfiles, { recursive: true });
const firstSyncOptions = { sameProcess: values['same-process'], ...(firstSyncProfiles !== undefined ? { profileDir: firstSyncProfiles } : {}) };
if (values.only === 'first-sync') {
  // Part 4 starts its own servers; none of the others' are needed. stdout is written synchronously to a pipe or file.
  printFigures('e2e', await firstSyncFigures([firstSyncSizes[0]!, firstSyncSizes[1]!], firstSyncRounds, concurrency, firstSyncOptions));
  process.exit(0);
}
const hookNamespace = 'e2e-hook';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let recording = false;
const recorded = recordApplies(() => recording);
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-e2e-bench-'));
// Every WebApp runs one pod, and the baseline as many again: nodes of the kubelet's default 110
// pods, enough for both with room to spare.
const nodes = Math.ceil((2 * webapps + 20) / 100);
const runId = randomUUID().slice(0, 6);
say(values.bare ? 'starting a bare API server and the reconciler' : `starting a full control plane (${nodes} simulated nodes), a bare API server and the reconciler`);
const bare = await startControlPlane({ name: `bench-e2e-bare-${runId}` });
const plane = values.bare ? bare : await startControlPlane({ name: `bench-e2e-${runId}`, controllers: { nodes } });
const marks = new PushPathRecorder();
const watcher = ClusterConnection.connect({ cluster: 'bench', kubeconfig: plane.kubeconfig });
const hookMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'latency', namespace: hookNamespace }, data: { value } });
// WebApps turn Ready only when their Deployment rolls out: a bare API server warms up on the ConfigMap alone.
const warm = values.bare ? { files: {}, keys: [`core/ConfigMap/${hookNamespace}/latency`] } : webAppFiles('e2e-warm', 1, 5);
const stack = await startBenchStack({
  workDir, kubeconfigPath: plane.kubeconfigPath, concurrency,
  mark: marks.mark,
  files: { ...warm.files, 'hook/ns.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hookNamespace } }), 'hook/latency.yaml': hookMap('start') },
});
const raw = await RawClient.connect(plane.kubeconfig, concurrency);
const rawBare = await RawClient.connect(bare.kubeconfig, concurrency);

async function readyCount(keys: ReadonlySet<string>, revision?: string): Promise<number> {
  const records = await stack.reconciler.statusStore.list('bench');
  return records.filter((record) => keys.has(record.objectKey) && (!revision || record.lastAppliedRevision === revision) && findCondition(record.conditions, 'Ready')?.status === 'True').length;
}

async function waitReady(keys: ReadonlySet<string>, label: string, intervalMs: number, revision?: string): Promise<void> {
  let last = -1;
  for (;;) {
    const ready = await readyCount(keys, revision);
    if (ready === keys.size) return;
    if (ready !== last && label) say(`  ${label}: ${ready}/${keys.size} Ready`);
    last = ready;
    await sleep(intervalMs);
  }
}

type Deployment = KubernetesManifest & { spec?: { replicas?: number }; status?: { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number } };

/** availableDeployments counts the Deployments in the namespaces that are rolled out and available. */
async function availableDeployments(namespaces: readonly string[]): Promise<number> {
  let available = 0;
  for (const namespace of namespaces) {
    for (const deployment of (await listObjects(watcher, 'apps/v1', 'Deployment', namespace)) as Deployment[]) {
      const { status, spec, metadata } = deployment;
      const replicas = spec?.replicas ?? 1;
      if (status?.observedGeneration === metadata.generation && status?.updatedReplicas === replicas && status?.availableReplicas === replicas) available += 1;
    }
  }
  return available;
}

/** rawApply sends every recorded PATCH once, into the `raw-` twin of its namespace; returns ms. */
async function rawApply(client: RawClient, patches: readonly RecordedApply[]): Promise<number> {
  // Creating a namespace that exists answers 409, which is fine.
  for (let n = 0; n < 10; n += 1) await client.send('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `raw-${n}` } }));
  const started = performance.now();
  await pool([...patches], concurrency, async (patch) => {
    const namespace = /\/namespaces\/(e2e-\d+)\//.exec(patch.path)?.[1];
    await client.apply(patch, namespace ? [namespace, namespace.replace('e2e-', 'raw-')] : undefined);
  });
  return performance.now() - started;
}

interface BulkFigures { pushMs: number; rawUntilAvailableMs: number; rawFullMs: number; rawBareMs: number; objects: number; builtIn: number; deployments: number }

async function thousandWebApps(current: BenchStack): Promise<BulkFigures> {
  const { files, keys } = webAppFiles('e2e', 10, webapps);
  for (const [path, content] of Object.entries(files)) await current.repo.write(path, content);
  await current.repo.commit(`${webapps} WebApps`);
  say(`git push of ${webapps} WebApps, webhook, until all are Ready (Deployments rolled out by the real controllers)`);
  recording = true;
  const started = performance.now();
  await current.repo.push();
  await current.notify();
  await waitReady(new Set(keys), 'WebApps', 1_000);
  const pushMs = performance.now() - started;
  recording = false;
  // Each object once, as its last PATCH: what a client that knew the result would send.
  const distinct = new Map<string, RecordedApply>();
  for (const patch of recorded.splice(0)) distinct.set(patch.path, patch);
  const patches = [...distinct.values()];
  const deployments = patches.filter((patch) => patch.path.includes('/deployments/')).length;
  // The controllers' cost is measured on the built-in objects: the bare server has no WebApp CRD
  // (and no conversion webhook behind it), so its CRs are left out on both sides of that figure.
  const builtIn = patches.filter((patch) => !patch.path.startsWith('/apis/tidemark.dev/'));
  const crs = patches.filter((patch) => patch.path.startsWith('/apis/tidemark.dev/'));
  say(`raw SSA of the ${builtIn.length} built-in objects on a bare API server, concurrency ${concurrency}`);
  const rawBareMs = await rawApply(rawBare, builtIn);
  say(`raw SSA of the same ${patches.length} objects on the full control plane, then until its ${deployments} Deployments are available`);
  const rawStarted = performance.now();
  const rawFullMs = await rawApply(raw, builtIn);
  await rawApply(raw, crs);
  const rawNamespaces = Array.from({ length: 10 }, (_, n) => `raw-${n}`);
  let last = -1;
  for (;;) {
    const available = await availableDeployments(rawNamespaces);
    if (available === deployments) break;
    if (available !== last) say(`  raw Deployments: ${available}/${deployments} available`);
    last = available;
    await sleep(1_000);
  }
  return { pushMs, rawUntilAvailableMs: performance.now() - rawStarted, rawFullMs, rawBareMs, objects: patches.length, builtIn: builtIn.length, deployments };
}

async function webhookLatencies(current: BenchStack): Promise<{ live: number[]; raw: number[]; breakdowns: PushBreakdown[] }> {
  const key = `core/ConfigMap/${hookNamespace}/latency`;
  const live: number[] = [];
  const rawTimes: number[] = [];
  const breakdowns: PushBreakdown[] = [];
  for (let i = 0; i < pushes; i += 1) {
    await current.repo.write('hook/latency.yaml', hookMap(`v${i}`));
    const revision = await current.repo.commit(`value ${i}`);
    await current.repo.push();
    // The clock starts as the Git host would send the webhook: the revision is known, no git spawn is timed.
    const started = marks.begin();
    await current.notify(revision);
    await waitReady(new Set([key]), '', 2, revision);
    live.push(performance.now() - started);
    breakdowns.push(marks.end(key));
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw-latency', namespace: hookNamespace }, data: { value: `v${i}` } });
    const rawStarted = performance.now();
    await raw.send('PATCH', `/api/v1/namespaces/${hookNamespace}/configmaps/raw-latency?fieldManager=raw&force=true`, body, 'application/apply-patch+yaml');
    rawTimes.push(performance.now() - rawStarted);
    if ((i + 1) % 10 === 0) say(`  ${i + 1}/${pushes} webhook pushes, last ${Math.round(live[i] ?? 0)} ms`);
  }
  return { live: sortedCopy(live), raw: sortedCopy(rawTimes), breakdowns };
}

const figures: Figure[] = [];
try {
  await stack.notify();
  say(`waiting for the first commit (${values.bare ? 'the ConfigMap' : '5 WebApps'}, warm-up)`);
  await waitReady(new Set(warm.keys), 'warm-up', 500);
  const hook = await webhookLatencies(stack);
  for (const line of describeBreakdowns(hook.breakdowns)) say(line);
  // The reconciler's own view of the same pushes: its commit-to-live histogram, origin webhook.
  const metrics = await (await fetch(`http://${stack.reconciler.http.address}/metrics`)).text();
  const sample = (name: string) => Number(new RegExp(`^tidemark_commit_to_live_seconds_${name}\\{cluster="bench",origin="webhook"\\} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  say(`reconciler's commit_to_live metric, origin webhook: ${sample('count')} samples, mean ${Math.round((sample('sum') / sample('count')) * 1000)} ms`);
  const webhookFigures = [
    figure(`one-object push until Ready via webhook${values.bare ? ', bare API server' : ''}, p50 of ${pushes}`, 'ms', percentile(hook.live, 0.5), 'raw SSA PATCH of the same change, p50', percentile(hook.raw, 0.5)),
    figure(`one-object push until Ready via webhook${values.bare ? ', bare API server' : ''}, p99 of ${pushes}`, 'ms', percentile(hook.live, 0.99), 'raw SSA PATCH of the same change, p99', percentile(hook.raw, 0.99)),
  ];
  if (webhookOnly) {
    figures.push(...webhookFigures);
  } else {
    const bulk = await thousandWebApps(stack);
    figures.push(...[
    figure(`git push of ${webapps} WebApps until all Ready (real controllers, KWOK pods)`, 'ms', bulk.pushMs, `raw SSA of the same ${bulk.objects} objects until their ${bulk.deployments} Deployments are available, concurrency ${concurrency}`, bulk.rawUntilAvailableMs),
    figure(`raw SSA of ${bulk.builtIn} built-in objects on the full control plane (controllers running)`, 'ms', bulk.rawFullMs, 'the same raw SSA on a bare API server', bulk.rawBareMs),
    ...webhookFigures,
    ]);
  }
} finally {
  raw.close();
  rawBare.close();
  watcher.close();
  await stack.stop();
  if (plane !== bare) await plane.stop();
  await bare.stop();
  await rm(workDir, { recursive: true, force: true });
}
// Part 4 on fresh servers of its own, once the control plane above is gone.
if (!webhookOnly) figures.push(...await firstSyncFigures([firstSyncSizes[0]!, firstSyncSizes[1]!], firstSyncRounds, concurrency, firstSyncOptions));
printFigures('e2e', figures);
