// End to end through the whole reconciler (webhook → poller → queue → workers → pipeline → SSA):
//  1. `git push` of 1,000 WebApps until every one is Ready in the status store. The rig has no
//     controllers, so a stand-in marks each Deployment available as another field manager; the
//     owned-object watch then wakes the WebApp, which turns Ready. Baseline: the same objects
//     (every distinct SSA PATCH the reconciler sent) applied by a minimal client, same concurrency.
//  2. A one-object push announced by the webhook until it is Ready at the new revision, p50/p99.
//     Baseline: a raw server-side apply of the same ConfigMap change, p50/p99.
//   npx tsx bench/e2e.bench.ts [--webapps 1000] [--pushes 50] [--concurrency 16]
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { findCondition } from '@tidemark/contracts';
import { startControlPlane } from '@tidemark/testing';
import { startDeploymentController } from './support/deployment-controller';
import { figure, percentile, pool, printFigures, say, sortedCopy } from './support/figures';
import { RawClient, recordApplies, type RecordedApply } from './support/raw-apply';
import { startBenchStack, type BenchStack } from './support/reconciler-stack';
import { webAppFiles } from './support/webapps';

const { values } = parseArgs({ options: { webapps: { type: 'string', default: '1000' }, pushes: { type: 'string', default: '50' }, concurrency: { type: 'string', default: '16' } } });
const webapps = Number(values.webapps);
const pushes = Number(values.pushes);
const concurrency = Number(values.concurrency);
const hookNamespace = 'e2e-hook';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let recording = false;
const recorded = recordApplies(() => recording);
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-e2e-bench-'));
say('starting a control plane, the reconciler and the stand-in deployment controller');
const plane = await startControlPlane({ name: `bench-e2e-${randomUUID().slice(0, 6)}` });
const controller = startDeploymentController(plane.kubeconfig, 'e2e-');
const hookMap = (value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'latency', namespace: hookNamespace }, data: { value } });
const warm = webAppFiles('e2e-warm', 1, 5);
const stack = await startBenchStack({
  workDir, kubeconfigPath: plane.kubeconfigPath, concurrency,
  files: { ...warm.files, 'hook/ns.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hookNamespace } }), 'hook/latency.yaml': hookMap('start') },
});
const raw = await RawClient.connect(plane.kubeconfig, concurrency);

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

async function thousandWebApps(current: BenchStack): Promise<{ pushMs: number; rawMs: number; objects: number }> {
  const { files, keys } = webAppFiles('e2e', 10, webapps);
  for (const [path, content] of Object.entries(files)) await current.repo.write(path, content);
  await current.repo.commit(`${webapps} WebApps`);
  say(`git push of ${webapps} WebApps, webhook, until all are Ready`);
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
  say(`raw SSA of the same ${distinct.size} objects, concurrency ${concurrency}`);
  for (let n = 0; n < 10; n += 1) await raw.send('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `raw-${n}` } }));
  const rawStarted = performance.now();
  await pool([...distinct.values()], concurrency, async (patch) => {
    const namespace = /\/namespaces\/(e2e-\d+)\//.exec(patch.path)?.[1];
    await raw.apply(patch, namespace ? [namespace, namespace.replace('e2e-', 'raw-')] : undefined);
  });
  return { pushMs, rawMs: performance.now() - rawStarted, objects: distinct.size };
}

async function webhookLatencies(current: BenchStack): Promise<{ live: number[]; raw: number[] }> {
  const key = `core/ConfigMap/${hookNamespace}/latency`;
  const live: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 0; i < pushes; i += 1) {
    await current.repo.write('hook/latency.yaml', hookMap(`v${i}`));
    const revision = await current.repo.commit(`value ${i}`);
    await current.repo.push();
    const started = performance.now();
    await current.notify();
    await waitReady(new Set([key]), '', 2, revision);
    live.push(performance.now() - started);
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw-latency', namespace: hookNamespace }, data: { value: `v${i}` } });
    const rawStarted = performance.now();
    await raw.send('PATCH', `/api/v1/namespaces/${hookNamespace}/configmaps/raw-latency?fieldManager=raw&force=true`, body, 'application/apply-patch+yaml');
    rawTimes.push(performance.now() - rawStarted);
    if ((i + 1) % 10 === 0) say(`  ${i + 1}/${pushes} webhook pushes, last ${Math.round(live[i] ?? 0)} ms`);
  }
  return { live: sortedCopy(live), raw: sortedCopy(rawTimes) };
}

try {
  await stack.notify();
  say('waiting for the first commit (5 WebApps, warm-up)');
  await waitReady(new Set(warm.keys), 'warm-up', 500);
  const hook = await webhookLatencies(stack);
  // The reconciler's own view of the same pushes: its commit-to-live histogram, origin webhook.
  const metrics = await (await fetch(`http://${stack.reconciler.http.address}/metrics`)).text();
  const sample = (name: string) => Number(new RegExp(`^tidemark_commit_to_live_seconds_${name}\\{cluster="bench",origin="webhook"\\} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  say(`reconciler's commit_to_live metric, origin webhook: ${sample('count')} samples, mean ${Math.round((sample('sum') / sample('count')) * 1000)} ms`);
  const bulk = await thousandWebApps(stack);
  printFigures('e2e', [
    figure(`git push of ${webapps} WebApps until all Ready`, 'ms', bulk.pushMs, `raw SSA of the same ${bulk.objects} objects, concurrency ${concurrency}`, bulk.rawMs),
    figure(`one-object push until Ready via webhook, p50 of ${pushes}`, 'ms', percentile(hook.live, 0.5), 'raw SSA PATCH of the same change, p50', percentile(hook.raw, 0.5)),
    figure(`one-object push until Ready via webhook, p99 of ${pushes}`, 'ms', percentile(hook.live, 0.99), 'raw SSA PATCH of the same change, p99', percentile(hook.raw, 0.99)),
  ]);
} finally {
  raw.close();
  controller.stop();
  await stack.stop();
  await plane.stop();
  await rm(workDir, { recursive: true, force: true });
}
