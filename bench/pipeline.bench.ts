// Pipeline apply throughput: the real reconcile() of 1,000 WebApps (five objects each with the
// CR) against one API server, beside the raw server-side-apply ceiling of that server measured
// in the same run: the very PATCHes the pipeline sent, replayed by a minimal client with the same
// concurrency into fresh namespaces.
//   npx tsx bench/pipeline.bench.ts [--webapps 1000] [--concurrency 16]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { ClusterConnection, applyObject } from '@tidemark/cluster';
import type { KubernetesManifest, ReconcileJob } from '@tidemark/contracts';
import { createDefaultRegistry } from '@tidemark/kinds';
import { reconcile, type DesiredObject, type PipelineDependencies } from '@tidemark/pipeline';
import { StatusStore } from '@tidemark/status-store';
import { startControlPlane, startRedis } from '@tidemark/testing';
import { installBuiltinCrds } from '../apps/reconciler/src/builtin-crds';
import { startTestConversionWebhook } from '../test/support/conversion-webhook';
import { figure, pool, printFigures, say } from './support/figures';
import { RawClient, recordApplies } from './support/raw-apply';
import { webApp } from './support/webapps';

const { values } = parseArgs({ options: { webapps: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '16' } } });
const webapps = Number(values.webapps);
const concurrency = Number(values.concurrency);
const namespaces = 10;
const revision = 'b'.repeat(40);

let recording = false;
const recorded = recordApplies(() => recording);
say(`starting a control plane and Redis`);
const [plane, redis] = await Promise.all([startControlPlane({ name: `bench-pipeline-${randomUUID().slice(0, 6)}` }), startRedis()]);
const connection = ClusterConnection.connect({ cluster: 'bench', kubeconfig: plane.kubeconfig, fieldManager: 'tidemark' });
const client = new Redis(redis.url);
const desired = new Map<string, DesiredObject>();
const kinds = createDefaultRegistry();
const deps: PipelineDependencies = {
  connectionFor: () => connection,
  actionsConnectionFor: () => connection.asManager('tidemark-actions'),
  desired: { readObject: async (_source, _revision, objectKey) => desired.get(objectKey) },
  kinds,
  statusStore: new StatusStore({ redis: client, prefix: 'bench' }),
};

async function createNamespaces(prefix: string): Promise<void> {
  for (let n = 0; n < namespaces; n += 1) await applyObject(connection, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${prefix}-${n}` } } as KubernetesManifest);
}

/** Failures is how many items of a run failed, and the first distinct messages (a bench reports them, it does not crash). */
class Failures {
  count = 0;
  readonly messages = new Map<string, number>();

  add(error: unknown): void {
    this.count += 1;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 400);
    if (this.messages.size < 5 || this.messages.has(message)) this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
  }

  describe(): string[] {
    return [...this.messages].map(([message, times]) => `${times}× ${message}`);
  }
}

/** runPipeline reconciles `count` WebApps under a namespace prefix and returns the wall time in ms and what failed. */
async function runPipeline(prefix: string, count: number): Promise<{ elapsed: number; failures: Failures }> {
  await createNamespaces(prefix);
  const jobs: ReconcileJob[] = [];
  for (let i = 0; i < count; i += 1) {
    const object = webApp(`${prefix}-${i % namespaces}`, `app-${i}`);
    const objectKey = `tidemark.dev/WebApp/${object.metadata.namespace}/${object.metadata.name}`;
    desired.set(objectKey, { object, path: `apps/${object.metadata.namespace}.yaml` });
    jobs.push({ source: 'bench', revision, cluster: 'bench', objectKey, reason: 'git-change' });
  }
  const failures = new Failures();
  const started = performance.now();
  await pool(jobs, concurrency, async (job, index) => {
    await reconcile(job, deps).catch((error: unknown) => failures.add(error));
    if ((index + 1) % 250 === 0) say(`  ${prefix}: ${index + 1}/${count} reconciled`);
  });
  const elapsed = performance.now() - started;
  if (failures.count > 0) say(`  ${failures.count} of ${count} reconciles failed under ${prefix}: ${failures.describe().join('; ')}`);
  return { elapsed, failures };
}

const conversion = await startTestConversionWebhook(kinds);
try {
  await installBuiltinCrds(connection, kinds, conversion.conversion());
  say('warming up (20 WebApps, not measured)');
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const ok = await runPipeline('warm', 20).then(({ failures }) => failures.count === 0, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  say(`pipeline: ${webapps} WebApps, concurrency ${concurrency} (records the PATCHes it sends)`);
  recording = true;
  const { elapsed: pipelineMs, failures: pipelineFailures } = await runPipeline('pipe-a', webapps);
  recording = false;
  const patches = recorded.splice(0);
  say(`  ${patches.length} applies (${recorded.requests} API requests in all) in ${Math.round(pipelineMs)} ms; requests: ${JSON.stringify(recorded.byKind)}`);

  // After the pipeline, so the raw client meets an API server and etcd at least as warm and as full.
  say(`raw SSA: the same ${patches.length} PATCHes by a minimal client, concurrency ${concurrency}, into fresh namespaces`);
  await createNamespaces('pipe-b');
  const raw = await RawClient.connect(plane.kubeconfig, concurrency);
  const rawStarted = performance.now();
  const rawFailures = new Failures();
  await pool(patches, concurrency, async (patch) => raw.apply(patch, [namespaceOf(patch.path), namespaceOf(patch.path).replace('pipe-a', 'pipe-b')]).catch((error: unknown) => rawFailures.add(error)));
  const rawMs = performance.now() - rawStarted;
  raw.close();
  if (rawFailures.count > 0) say(`  ${rawFailures.count} of ${patches.length} raw applies failed: ${rawFailures.describe().join('; ')}`);

  const pipelineRate = patches.length / (pipelineMs / 1000);
  const rawRate = patches.length / (rawMs / 1000);
  printFigures('pipeline', [
    figure(`pipeline apply throughput, ${webapps} WebApps (${patches.length} objects), concurrency ${concurrency}`, 'objects/s', pipelineRate, 'raw SSA of the same PATCHes, same concurrency', rawRate),
    figure(`pipeline time for ${webapps} WebApps`, 'ms', pipelineMs, 'raw SSA time for the same objects', rawMs),
  ], {
    apiRequestsPerWebApp: Math.round(recorded.requests / webapps), objectsPerWebApp: patches.length / webapps, requestsByKind: recorded.byKind,
    // A failed item makes its side faster than it should be: the figures are shown with what failed, not as clean.
    pipelineFailures: pipelineFailures.count, rawFailures: rawFailures.count,
    ...(pipelineFailures.count + rawFailures.count > 0 ? { failureMessages: [...pipelineFailures.describe(), ...rawFailures.describe()] } : {}),
  });
  if (pipelineFailures.count + rawFailures.count > 0) process.exitCode = 1;
} finally {
  connection.close();
  client.disconnect();
  await redis.stop();
  await plane.stop();
  await conversion.stop();
}

function namespaceOf(path: string): string {
  return /\/namespaces\/([^/]+)\//.exec(path)?.[1] ?? '';
}
