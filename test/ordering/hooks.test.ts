// Sync hooks end to end: a whole reconciler (poller, queues, workers, watches) on a control plane of
// its own with kube-controller-manager, kube-scheduler and KWOK nodes. The Job controller is real;
// the pods are KWOK's (stand-in: KWOK's pod stages play the container, so a Job pod completes
// without running anything, and no pod has a log to read). A Job that must fail is made to fail
// by the real Job controller: its pod can be scheduled nowhere, and its deadline passes.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { cp, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { getObject } from '@tidemark/cluster';
import { findCondition, type KubernetesManifest } from '@tidemark/contracts';
import { buildRenderTools, startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const namespace = `hooks-${randomUUID().slice(0, 6)}`;
let plane: ControlPlane;
let stack: OrderingStack;

type Job = KubernetesManifest & { status?: { completionTime?: string; succeeded?: number } };
type Deployment = KubernetesManifest & { spec: { template: { spec: { containers: { image: string }[] } } } };

const podSpec = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: name } }, spec: { restartPolicy: 'Never', containers: [{ name, image: 'registry.example/tool:1' }], ...extra },
});
const migrateJob = (extra: Record<string, unknown> = {}, pod: Record<string, unknown> = {}) => stringify({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace, annotations: { 'tidemark.dev/hook': 'pre-apply' } },
  spec: { backoffLimit: 0, template: podSpec('migrate', pod), ...extra },
});
const web = (image: string) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
});

const migrateKey = `batch/Job/${namespace}/migrate`;
const webKey = `apps/Deployment/${namespace}/web`;
const job = (name: string) => getObject(stack.connection, { apiVersion: 'batch/v1', kind: 'Job', namespace, name }) as Promise<Job | undefined>;
const deployment = (name: string) => getObject(stack.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }) as Promise<Deployment | undefined>;
const imageOf = async (name: string) => (await deployment(name))?.spec.template.spec.containers[0]?.image;

/** runOf reads the run a hook's Ready message names: `(run <id>, Job <name>)`. */
async function runOf(objectKey: string): Promise<{ id: string; name: string }> {
  const message = findCondition((await stack.status(objectKey))?.conditions, 'Ready')?.message ?? '';
  const found = /\(run ([0-9a-f]{10}), Job ([a-z0-9-]+)\)/.exec(message);
  if (!found) throw new Error(`no run in "${message}"`);
  return { id: found[1]!, name: found[2]! };
}

/** appliedAt is when Tidemark's field manager last applied the object (its managedFields entry). */
function appliedAt(object: KubernetesManifest): string {
  const entries = (object.metadata.managedFields ?? []) as { manager?: string; operation?: string; time?: string }[];
  return entries.find((entry) => entry.manager === 'tidemark' && entry.operation === 'Apply')?.time ?? '';
}

beforeAll(async () => {
  const toolsDir = await buildRenderTools();
  plane = await startControlPlane({ name: 'hooks', controllers: true });
  stack = await startOrderingStack({
    kubeconfigPath: plane.kubeconfigPath, kubeconfig: plane.kubeconfig, redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000, cluster: 'hooks',
    config: { render: { toolsDir } },
  });
  await stack.repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
});
afterAll(async () => {
  await stack?.stop();
  await plane?.stop();
});

describe('sync hooks on the real Job controller', () => {
  it('runs a pre-apply migration Job before the Deployment changes, under a new name at each revision that changes what the source applies', async () => {
    await stack.repo.write('app/migrate.yaml', migrateJob());
    await stack.repo.write('app/web.yaml', web('registry.example/web:1'));
    const first = await stack.repo.commitAndPush('a migration and the Deployment it precedes');
    await expect.poll(() => stack.readyAt(webKey, first), { timeout: 120_000, interval: 250 }).toBe(true);
    expect(await stack.readyAt(migrateKey, first)).toBe(true);
    expect(await stack.readyCondition(migrateKey)).toMatch(new RegExp(`^True ReconciliationSucceeded: pre-apply hook Job ${namespace}/migrate \\(run [0-9a-f]{10}, Job migrate-[0-9a-f]{10}\\) succeeded for revision ${first.slice(0, 12)}\\.$`));
    const run1 = await runOf(migrateKey);
    const ran1 = await job(run1.name);
    expect(ran1?.status?.succeeded).toBe(1);
    // Never applied under its Git name: each run is its own Job.
    expect(await job('migrate')).toBeUndefined();
    // The Deployment was first applied after the migration completed (the API server's own clocks, to the second).
    const created = await deployment('web');
    expect(ran1!.status!.completionTime! <= created!.metadata.creationTimestamp!).toBe(true);

    await stack.repo.write('app/web.yaml', web('registry.example/web:2'));
    const second = await stack.repo.commitAndPush('a new image: the migration runs again first');
    await expect.poll(() => stack.readyAt(webKey, second), { timeout: 120_000, interval: 250 }).toBe(true);
    expect(await imageOf('web')).toBe('registry.example/web:2');
    const run2 = await runOf(migrateKey);
    expect(run2.id).not.toBe(run1.id);
    const ran2 = await job(run2.name);
    expect(ran2?.status?.succeeded).toBe(1);
    expect(ran2!.status!.completionTime! <= appliedAt((await deployment('web'))!)).toBe(true);
    // before-hook-creation (the default): the earlier run was pruned, through the ownership guards, once the new one was applied.
    await expect.poll(async () => (await job(run1.name))?.metadata.deletionTimestamp ?? (await job(run1.name)) === undefined, { timeout: 30_000 }).toBeTruthy();
    const history = await stack.reconciler.statusStore.history(stack.cluster, webKey);
    for (const wait of history.filter((entry) => entry.result === 'waiting')) {
      expect(wait.message).toMatch(new RegExp(`^waiting for (Job ${namespace}/migrate \\(a sync hook\\)|Namespace ${namespace} \\(its Namespace\\)) to be Ready`));
    }
  });

  it("runs a chart's Helm hooks in Helm's order: pre-install by weight, the Deployment, then the post-install smoke test, which Ready waits for", async () => {
    const chart = fileURLToPath(new URL('fixtures/hooks-chart', import.meta.url));
    await cp(chart, join(stack.repo.dir, 'chart'), { recursive: true });
    await stack.repo.write('chart/tidemark-render.yaml', stringify({ helm: { releaseName: 'shop', namespace } }));
    const revision = await stack.repo.commitAndPush('a chart with Helm hooks');
    const key = (kind: string, name: string) => `${kind === 'Job' ? 'batch' : 'apps'}/${kind}/${namespace}/${name}`;
    await expect.poll(() => stack.readyAt(key('Job', 'shop-smoke'), revision), { timeout: 180_000, interval: 250 }).toBe(true);
    for (const name of ['shop-schema', 'shop-migrate']) expect(await stack.readyAt(key('Job', name), revision)).toBe(true);
    expect(await stack.readyAt(key('Deployment', 'shop-web'), revision)).toBe(true);

    const schema = await job((await runOf(key('Job', 'shop-schema'))).name);
    const migrate = await job((await runOf(key('Job', 'shop-migrate'))).name);
    // Weight -5 completed before weight 0 was created, and both before the Deployment was.
    expect(schema!.status!.completionTime! <= migrate!.metadata.creationTimestamp!).toBe(true);
    expect(migrate!.status!.completionTime! <= (await deployment('shop-web'))!.metadata.creationTimestamp!).toBe(true);

    // The smoke test ran only once the Deployment was Ready, and the revision was not all Ready before it succeeded.
    const webReady = findCondition((await stack.status(key('Deployment', 'shop-web')))?.conditions, 'Ready')!;
    const smokeRuns = (await stack.reconciler.statusStore.history(stack.cluster, key('Job', 'shop-smoke'))).filter((entry) => entry.revision === revision);
    const firstApply = smokeRuns.filter((entry) => entry.result !== 'waiting').map((entry) => entry.startedAt).sort()[0]!;
    expect(firstApply >= webReady.lastTransitionTime).toBe(true);
    expect(await stack.readyCondition(key('Job', 'shop-smoke'))).toMatch(/^True ReconciliationSucceeded: post-apply hook Job .*\/shop-smoke \(run [0-9a-f]{10}, Job shop-smoke-[0-9a-f]{10}\) succeeded for revision/);
    // hook-succeeded: the smoke test's Job is deleted once it succeeded; its record keeps the verdict.
    await expect.poll(async () => (await job((await runOf(key('Job', 'shop-smoke'))).name))?.metadata.deletionTimestamp ?? 'gone', { timeout: 30_000 }).toBeTruthy();
    // A post-rollback hook has no moment in Tidemark: it is never applied, and says so.
    const rollback = `core/ConfigMap/${namespace}/shop-rollback-note`;
    expect(await stack.readyCondition(rollback)).toMatch(/^True ReconciliationSucceeded: Helm hook post-rollback has no moment in Tidemark/);
    expect(await getObject(stack.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'shop-rollback-note' })).toBeUndefined();
    expect(await readFile(join(chart, 'Chart.yaml'), 'utf8')).toContain('name: shop');
  });

  it('stops the apply when a pre-apply hook fails: the Deployment stays as it was, says which hook failed and why, and the apply-failed hook runs', async () => {
    // The Job controller fails it: its pod fits no node, and its deadline passes.
    await stack.repo.write('app/migrate.yaml', migrateJob({ activeDeadlineSeconds: 2 }, { nodeSelector: { 'no-such-node': 'true' } }));
    await stack.repo.write('app/page.yaml', stringify({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'page', namespace, annotations: { 'tidemark.dev/hook': 'apply-failed' } },
      spec: { backoffLimit: 0, template: podSpec('page') },
    }));
    await stack.repo.write('app/web.yaml', web('registry.example/web:3'));
    const third = await stack.repo.commitAndPush('a migration that fails');
    await expect.poll(() => stack.readyCondition(migrateKey), { timeout: 120_000, interval: 250 })
      .toMatch(new RegExp(`^False HealthCheckFailed: pre-apply hook Job ${namespace}/migrate \\(run [0-9a-f]{10}, Job migrate-[0-9a-f]{10}\\) failed: Job ${namespace}/migrate-[0-9a-f]{10} failed.*deadline.*(Last log lines of pod|Its log could not be read|No pod of it is left)`, 'i'));
    await expect.poll(() => stack.readyCondition(webKey), { timeout: 60_000, interval: 250 })
      .toMatch(new RegExp(`^False DependencyFailed: waiting for Job ${namespace}/migrate \\(a sync hook\\) to be Ready: HealthCheckFailed: pre-apply hook`));
    expect((await stack.status(webKey))?.lastAttemptedRevision).toBe(third);
    expect(await imageOf('web')).toBe('registry.example/web:2');
    // The apply failed, so the apply-failed hook ran (it waited for nothing else).
    const pageKey = `batch/Job/${namespace}/page`;
    await expect.poll(() => stack.readyCondition(pageKey), { timeout: 60_000, interval: 250 })
      .toMatch(new RegExp(`^True ReconciliationSucceeded: apply-failed hook Job ${namespace}/page \\(run [0-9a-f]{10}, Job page-[0-9a-f]{10}\\) succeeded for revision ${third.slice(0, 12)}\\.$`));
    expect((await job((await runOf(pageKey)).name))?.status?.succeeded).toBe(1);
  });
});
