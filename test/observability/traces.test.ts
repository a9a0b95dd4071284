// Traces from push to Ready, against a real Jaeger (v1.75 all-in-one, built from the Go module proxy,
// test/jaeger) on loopback. The reconciler runs as the image runs it (the bundle), as two processes
// on the shared rig: a poller (which takes the webhook) and a worker. One signed push yields one trace
// whose spans come from both processes, in order, with the source, revision, cluster and object as
// attributes, and never the value of the Secret the push changes. The run's history entry names the trace.
// The push also changes a Kustomize unit's input (not its output), so the poller runs kustomize in the
// render sandbox: that run is a span of the same trace, and so is each run's wait for its object's health.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys, type ReconcileRecord } from '@tidemark/contracts';
import {
  buildAppBundles, buildJaeger, buildRenderTools, freePort, killAppProcess, sendGithubPush, startAppProcess, startGitServer, startJaeger,
  type AppBundles, type AppProcess, type GitServer, type JaegerSpan, type JaegerTrace, type TestJaeger, type WorkingCopy,
} from '@tidemark/testing';
import { removeKeys, waitFor } from '../queue/helpers';

const id = randomUUID().slice(0, 8);
const prefix = `traces-${id}`;
const namespace = `traces-${id}`;
const source = 'traced';
const webhookSecret = `hook-${randomUUID()}`;
// The Secret's value in Git, before and after the push: no span may carry either.
const canaries = [`canary-one-${randomUUID()}`, `canary-two-${randomUUID()}`];
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const configMapKey = `core/ConfigMap/${namespace}/settings`;

let jaeger: TestJaeger;
let bundles: AppBundles;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let redis: Redis;
let admin: ClusterConnection;
let pollerPort: number;
let toolsDir: string;
const running: AppProcess[] = [];

const manifests = (value: string, secret: string) => [
  stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } }),
  stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'credentials', namespace }, type: 'Opaque', stringData: { token: secret } }),
];

async function writeManifests(value: string, secret: string): Promise<void> {
  const [ns, configMap, credentials] = manifests(value, secret);
  await repo.write('namespace.yaml', ns!);
  await repo.write('settings.yaml', configMap!);
  await repo.write('credentials.yaml', credentials!);
  // A comment that says the value: the unit renders again at each push, to the same object (no job, no run).
  await repo.write('rendered/kustomization.yaml', `# ${value}\n${stringify({ resources: ['limits.yaml'] })}`);
  await repo.write('rendered/limits.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace }, data: { max: '10' } }));
}

/** startRole writes this role's tidemark.yaml (tracing to the test's Jaeger) and starts the bundle with TIDEMARK_ROLE. */
async function startRole(role: 'poller' | 'worker', repoUrl: string, port: number): Promise<AppProcess> {
  const path = join(workDir, `${role}.yaml`);
  await writeFile(join(workDir, 'webhook-secret'), webhookSecret);
  await writeFile(join(workDir, 'otlp-key'), 'not-checked-by-jaeger');
  await writeFile(path, stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, `cache-${role}`),
    // Only the webhook polls after the first poll: the interval is an hour.
    sources: [{ name: source, url: repoUrl, ref: { branch: 'main' }, intervalMs: 3_600_000 }],
    clusters: [{ name: 'rig', kubeconfig: inject('kubeconfigPath') }],
    http: { port, host: '127.0.0.1' },
    webhooks: [{ source, provider: 'github', secret: { file: './webhook-secret' } }],
    render: { toolsDir },
    tracing: { endpoint: jaeger.otlpTracesUrl, headers: { 'x-otlp-key': { file: './otlp-key' } }, batchDelayMs: 100 },
  }));
  const app = startAppProcess({ name: role, bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: path, TIDEMARK_ROLE: role, TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
  running.push(app);
  await waitFor(() => app.started || app.child.exitCode !== null, 120_000, `the ${role} to start`).catch((error: unknown) => {
    throw new Error(`${String(error)}:\n${app.output}`);
  });
  if (!app.started) throw new Error(`the ${role} stopped before it started:\n${app.output}`);
  return app;
}

const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((entry) => entry.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((reference) => reference.refType === 'CHILD_OF')?.spanID;
const roleOf = (trace: JaegerTrace, span: JaegerSpan) => trace.processes[span.processID]?.tags.find((entry) => entry.key === 'tidemark.role')?.value;

/** webhookTraces lists the traces that start at a webhook span, as Jaeger holds them now. */
async function webhookTraces(): Promise<JaegerTrace[]> {
  const traces = await jaeger.traces('tidemark', 50);
  return traces.filter((trace) => trace.spans.some((span) => span.operationName === 'webhook' && parentOf(span) === undefined));
}

beforeAll(async () => {
  await buildJaeger();
  toolsDir = await buildRenderTools();
  [jaeger, bundles, git] = await Promise.all([startJaeger(), buildAppBundles(repoRoot, `test-artifacts/traces-${id}`), startGitServer()]);
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-traces-'));
  const repoUrl = await git.createRepository(source);
  repo = await git.workingCopy(source);
  await writeManifests('one', canaries[0]!);
  await repo.commitAndPush('first');
  pollerPort = await freePort();
  await startRole('poller', repoUrl, pollerPort);
  await startRole('worker', repoUrl, 0);
  await waitFor(async () => (await valueOf()) === 'one', 60_000, `the first commit to be applied:\n${running.map((app) => app.output).join('\n')}`);
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((app) => killAppProcess(app)));
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  if (redis) {
    await removeKeys(redis, prefix);
    redis.disconnect();
  }
  await Promise.all([git?.stop(), jaeger?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
  await bundles?.remove();
});

describe('traces from a push to Ready', () => {
  it('one webhook push is one trace across the poller and worker processes, in order, with its ids and no secret', async () => {
    await writeManifests('two', canaries[1]!);
    const revision = await repo.commitAndPush('second');
    const before = new Set((await webhookTraces()).map((trace) => trace.traceID));
    expect(await sendGithubPush(`http://127.0.0.1:${pollerPort}/hooks/${source}`, webhookSecret)).toBe(202);
    await expect.poll(valueOf, { timeout: 60_000 }).toBe('two');

    // The trace is complete once the worker's runs of the two changed objects are exported (the Namespace did
    // not change, so the push queues no job for it). A run's span ends after its stages', so it is sent last.
    let trace: JaegerTrace | undefined;
    await expect.poll(async () => {
      const fresh = (await webhookTraces()).filter((candidate) => !before.has(candidate.traceID));
      trace = fresh.length === 1 ? await jaeger.trace(fresh[0]!.traceID) : undefined;
      return trace?.spans.filter((span) => span.operationName === 'reconcile' && tag(span, 'tidemark.revision') === revision).length ?? 0;
    }, { timeout: 60_000, interval: 500 }).toBeGreaterThanOrEqual(2);
    expect((await webhookTraces()).filter((candidate) => !before.has(candidate.traceID))).toHaveLength(1);
    const spans = trace!.spans;
    const named = (name: string) => spans.filter((span) => span.operationName === name);
    const byId = new Map(spans.map((span) => [span.spanID, span]));

    // The chain webhook -> poll -> enqueue -> reconcile, each a child of the one before, each starting no earlier.
    const [webhook] = named('webhook');
    const [poll] = named('poll');
    const [enqueue] = named('enqueue');
    expect(named('webhook')).toHaveLength(1);
    expect(parentOf(poll!)).toBe(webhook!.spanID);
    expect(parentOf(enqueue!)).toBe(poll!.spanID);
    expect(tag(poll!, 'tidemark.trigger')).toBe('webhook');
    expect(tag(poll!, 'tidemark.revision')).toBe(revision);
    expect(poll!.startTime).toBeGreaterThanOrEqual(webhook!.startTime);
    expect(enqueue!.startTime).toBeGreaterThanOrEqual(poll!.startTime);

    // The poll's fetch ran kustomize in the render sandbox once, for the unit whose input the push changed, before the enqueue.
    const pollFetch = spans.find((span) => span.operationName === 'fetch' && parentOf(span) === poll!.spanID)!;
    const tools = named('render tool');
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(parentOf(tool!)).toBe(pollFetch.spanID);
    expect(roleOf(trace!, tool!)).toBe('poller');
    expect({ source: tag(tool!, 'tidemark.source'), revision: tag(tool!, 'tidemark.revision'), tool: tag(tool!, 'tidemark.render.tool'), unit: tag(tool!, 'tidemark.render.unit') })
      .toEqual({ source, revision, tool: 'kustomize', unit: 'rendered' });
    expect(tool!.startTime).toBeGreaterThanOrEqual(pollFetch.startTime);
    expect(enqueue!.startTime).toBeGreaterThanOrEqual(tool!.startTime + tool!.duration);
    const runs = named('reconcile').filter((span) => tag(span, 'tidemark.revision') === revision);
    const seen = named('reconcile').map((span) => `${String(tag(span, 'tidemark.object'))}@${String(tag(span, 'tidemark.revision'))}`);
    expect(runs.map((span) => tag(span, 'tidemark.object')).sort(), `runs of ${revision} among ${seen.join(', ')}`).toEqual([configMapKey, `core/Secret/${namespace}/credentials`].sort());

    // Two processes: the webhook, poll and enqueue in the poller, every run in the worker.
    for (const span of [webhook!, poll!, enqueue!]) expect(roleOf(trace!, span)).toBe('poller');
    for (const run of runs) {
      expect(roleOf(trace!, run)).toBe('worker');
      expect(parentOf(run)).toBe(enqueue!.spanID);
      expect(run.startTime).toBeGreaterThanOrEqual(enqueue!.startTime);
      expect({ source: tag(run, 'tidemark.source'), cluster: tag(run, 'tidemark.cluster'), health: tag(run, 'tidemark.health') }).toEqual({ source, cluster: 'rig', health: 'Ready' });
      // The stages, children of the run, in the pipeline's order.
      const order = ['fetch', 'render', 'apply', 'prune', 'health', 'finalize'];
      const stages = spans.filter((span) => parentOf(span) === run.spanID);
      expect(stages.map((span) => span.operationName).sort()).toEqual([...order].sort());
      const startOf = (name: string) => stages.find((span) => span.operationName === name)!.startTime;
      // Microseconds: a stage that takes none may start with the one before it, never before it.
      for (let index = 1; index < order.length; index += 1) expect(startOf(order[index]!), `${order[index]} after ${order[index - 1]}`).toBeGreaterThanOrEqual(startOf(order[index - 1]!));
      // The wait for the object's health is one span under the health stage, ending with its verdict, before finalize.
      const health = stages.find((span) => span.operationName === 'health')!;
      const waits = spans.filter((span) => parentOf(span) === health.spanID);
      expect(waits.map((span) => span.operationName)).toEqual(['health wait']);
      expect({ object: tag(waits[0]!, 'tidemark.object'), revision: tag(waits[0]!, 'tidemark.revision'), cluster: tag(waits[0]!, 'tidemark.cluster'), health: tag(waits[0]!, 'tidemark.health') })
        .toEqual({ object: tag(run, 'tidemark.object'), revision, cluster: 'rig', health: 'Ready' });
      expect(waits[0]!.startTime).toBeGreaterThanOrEqual(startOf('apply'));
      expect(startOf('finalize')).toBeGreaterThanOrEqual(waits[0]!.startTime + waits[0]!.duration);
      const apply = stages.find((span) => span.operationName === 'apply')!;
      const objects = spans.filter((span) => parentOf(span) === apply.spanID);
      expect(objects.map((span) => span.operationName)).toEqual(['apply object']);
      expect(objects[0]!.startTime).toBeGreaterThanOrEqual(apply.startTime);
    }
    const configMapApply = spans.find((span) => span.operationName === 'apply object' && tag(span, 'k8s.object.kind') === 'ConfigMap')!;
    expect({ name: tag(configMapApply, 'k8s.object.name'), namespace: tag(configMapApply, 'k8s.object.namespace'), action: tag(configMapApply, 'tidemark.action') })
      .toEqual({ name: 'settings', namespace, action: 'configured' });
    expect(byId.get(parentOf(configMapApply)!)?.operationName).toBe('apply');

    // No span, tag or process says the Secret's value, old or new.
    const text = JSON.stringify(trace);
    for (const canary of canaries) expect(text).not.toContain(canary);
    expect(text).not.toContain(webhookSecret);

    // The run's history entry names its trace, for the dashboard's link.
    const [latest] = (await redis.lrange(new RecordKeys(prefix).history('rig', configMapKey), 0, 0)).map((entry) => JSON.parse(entry) as ReconcileRecord);
    // Jaeger's API writes a trace id without its leading zeros.
    expect(latest).toMatchObject({ revision, traceId: trace!.traceID.padStart(32, '0') });
  });
});
