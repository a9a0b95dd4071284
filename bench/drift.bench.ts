// Drift latency: 100 hand edits (a merge PATCH of a managed field, as `kubectl patch` sends it)
// of a ConfigMap under the report policy, until the status store shows the drift, and of one
// under heal, until the watch shows Git's value back. Baseline in the same run: the API server's
// own watch latency for the same edits (PATCH sent until the watch delivers the edited object).
//   npx tsx bench/drift.bench.ts [--edits 100]
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { ClusterConnection, watchObjects } from '@tidemark/cluster';
import { startControlPlane } from '@tidemark/testing';
import { figure, percentile, printFigures, say, sortedCopy } from './support/figures';
import { RawClient } from './support/raw-apply';
import { startBenchStack } from './support/reconciler-stack';

const { values } = parseArgs({ options: { edits: { type: 'string', default: '100' } } });
const edits = Number(values.edits);
const namespace = 'drift-bench';
const configMap = (name: string, policy: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations: { 'tidemark.dev/drift': policy } }, data: { mode: 'from-git' } });

type Waiter = (name: string, mode: string | undefined, at: number) => void;
let waiter: Waiter = () => undefined;

const workDir = await mkdtemp(join(tmpdir(), 'tidemark-drift-bench-'));
say('starting a control plane and the reconciler');
const plane = await startControlPlane({ name: `bench-drift-${randomUUID().slice(0, 6)}` });
const stack = await startBenchStack({
  workDir, kubeconfigPath: plane.kubeconfigPath, concurrency: 4,
  files: { 'ns.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }), 'report.yaml': configMap('reported', 'report'), 'heal.yaml': configMap('healed', 'heal') },
});
const connection = ClusterConnection.connect({ cluster: 'bench', kubeconfig: plane.kubeconfig });
const raw = await RawClient.connect(plane.kubeconfig, 2);
const watch = watchObjects(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, onEvent: (_type, object) => waiter(object.metadata.name, (object as { data?: { mode?: string } }).data?.mode, performance.now()) });

function edit(name: string, value: string): Promise<number> {
  return raw.send('PATCH', `/api/v1/namespaces/${namespace}/configmaps/${name}?fieldManager=kubectl-patch`, JSON.stringify({ data: { mode: value } }), 'application/merge-patch+json');
}

/**
 * healOnce edits the healed ConfigMap; returns [watch saw the edit, watch saw Git's value back] in
 * ms after sending. Edits follow the last heal at once, often in the same wall-clock second: a
 * tie in managedFields' one-second times counts as someone else's change (isOwnEcho), so this
 * measures that case too.
 */
async function healOnce(value: string): Promise<[number, number]> {
  let seen = 0;
  const done = new Promise<number>((resolve, reject) => {
    waiter = (name, mode, at) => {
      if (name !== 'healed') return;
      if (mode === value && seen === 0) seen = at;
      else if (mode === 'from-git' && seen > 0) resolve(at);
    };
    setTimeout(() => reject(new Error(`${value} on the healed ConfigMap was not reverted within 30 s`)), 30_000).unref();
  });
  const sent = performance.now();
  await edit('healed', value);
  const healedAt = await done;
  return [seen - sent, healedAt - sent];
}

/** detectOnce edits the reported ConfigMap; returns [watch saw the edit, store shows the drift] in ms after sending. */
async function detectOnce(value: string): Promise<[number, number]> {
  let seen = 0;
  waiter = (name, mode, at) => { if (name === 'reported' && mode === value && seen === 0) seen = at; };
  const sent = performance.now();
  await edit('reported', value);
  const key = `core/ConfigMap/${namespace}/reported`;
  for (;;) {
    const record = await stack.reconciler.statusStore.get('bench', key);
    if (record?.drift?.some((item) => item.live === value)) return [seen - sent, performance.now() - sent];
    if (performance.now() - sent > 30_000) throw new Error(`drift of ${value} not in the store after 30 s: ${JSON.stringify({ drift: record?.drift, conditions: record?.conditions })}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

try {
  await watch.synced;
  await stack.notify();
  say('waiting for the two ConfigMaps to be applied');
  for (;;) {
    const records = await stack.reconciler.statusStore.list('bench');
    if (records.filter((record) => record.kind === 'ConfigMap' && record.lastAppliedRevision).length === 2) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The owned-object watches start within their refresh interval after the first apply: one heal,
  // not measured, waits for that (or for the periodic check) instead of a fixed sleep.
  await healOnce('warm-up');
  const samples = { detect: [] as number[], heal: [] as number[], watchReport: [] as number[], watchHeal: [] as number[] };
  for (let i = 0; i < edits; i += 1) {
    const [watchMs, detectMs] = await detectOnce(`edit-${i}`);
    samples.watchReport.push(watchMs);
    samples.detect.push(detectMs);
    const [watchHealMs, healMs] = await healOnce(`edit-${i}`);
    samples.watchHeal.push(watchHealMs);
    samples.heal.push(healMs);
    if ((i + 1) % 10 === 0) say(`  ${i + 1}/${edits} edits: last detect ${Math.round(detectMs)} ms, last heal ${Math.round(healMs)} ms`);
  }
  const watchAll = sortedCopy([...samples.watchReport, ...samples.watchHeal]);
  const detect = sortedCopy(samples.detect);
  const heal = sortedCopy(samples.heal);
  const baseline = `API server watch latency of the same edits (${watchAll.length})`;
  printFigures('drift', [
    figure(`drift detected in the status store, p50 of ${edits} edits`, 'ms', percentile(detect, 0.5), `${baseline}, p50`, percentile(watchAll, 0.5)),
    figure(`drift detected in the status store, p99 of ${edits} edits`, 'ms', percentile(detect, 0.99), `${baseline}, p99`, percentile(watchAll, 0.99)),
    figure(`drift healed (watch shows Git's value), p50 of ${edits} edits`, 'ms', percentile(heal, 0.5), `${baseline}, p50`, percentile(watchAll, 0.5)),
    figure(`drift healed (watch shows Git's value), p99 of ${edits} edits`, 'ms', percentile(heal, 0.99), `${baseline}, p99`, percentile(watchAll, 0.99)),
  ]);
} finally {
  watch.stop();
  raw.close();
  connection.close();
  await stack.stop();
  await plane.stop();
  await rm(workDir, { recursive: true, force: true });
}
