// One object of each failure class, through the real queue, pipeline and API server, then the
// four views compared: the badge (matrix cell), the overview counts, the queue page and the
// conditions must agree on which objects fail and why.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyObject, ClusterConnection, deleteObject } from '@tidemark/cluster';
import { findCondition, type ObjectStatus } from '@tidemark/contracts';
import { reconcile, type PipelineDependencies } from '@tidemark/pipeline';
import { ReconcileWorkers, type ClusterQueueFigures } from '@tidemark/queue';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let harness: PipelineHarness;
let dashboard: DashboardFixture;
let workers: ReconcileWorkers;
let unreachable: ClusterConnection;
const namespace = `taxonomy-${Date.now().toString(36)}`;
const policy = `${namespace}-deny`;

const keys = {
  ready: `core/ConfigMap/${namespace}/fine`,
  invalid: `apps/Deployment/${namespace}/two-replicas`,
  forbidden: `core/ConfigMap/${namespace}/denied`,
  waiting: `example.com/Gadget/${namespace}/gizmo`,
  internal: `core/ConfigMap/${namespace}/tripwire`,
};

const api = async <T>(url: string): Promise<T> => (await dashboard.app.inject({ url, headers: { authorization: `Bearer ${viewerToken}` } })).json() as T;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  // A cache that learns of writes late (a 2 s batch) must still agree with the store: each request syncs it first.
  dashboard = await startDashboardFixture(inject('redisUrl'), { store: harness.statusStore, clusters: ['shared', 'edge'], liveBatchMs: 2_000 });
  // A policy that answers 403 for one ConfigMap: a real Forbidden from the API server.
  for (const object of [
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: policy },
      spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression: `object.metadata.name != 'denied' || object.metadata.namespace != '${namespace}'`, message: 'ConfigMaps named denied are not allowed here', reason: 'Forbidden' }] } },
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: policy }, spec: { policyName: policy, validationActions: ['Deny'] } },
  ]) await applyObject(harness.connection, object);
  // The edge cluster's API server is not there: every request is refused (transient).
  unreachable = ClusterConnection.connect({ cluster: 'edge', kubeconfig: unreachableKubeconfig() });
  const deps: PipelineDependencies = {
    ...harness.deps,
    connectionFor: (cluster) => (cluster === 'edge' ? unreachable : harness.connection),
    desired: {
      // A fault planted in Tidemark's own code path: reading this object throws a TypeError (internal).
      async readObject(source, revision, objectKey, cluster) {
        if (objectKey === keys.internal) return (undefined as unknown as { read(): never }).read();
        return harness.deps.desired.readObject(source, revision, objectKey, cluster);
      },
    },
  };
  workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix: dashboard.prefix, clusters: ['shared', 'edge'], onError: () => undefined });
  await workers.start((job, signal) => reconcile(job, deps, signal));
});
afterAll(async () => {
  await workers?.close();
  for (const kind of ['ValidatingAdmissionPolicyBinding', 'ValidatingAdmissionPolicy']) {
    await deleteObject(harness.connection, { group: 'admissionregistration.k8s.io', kind, namespace: '', name: policy }).catch(() => undefined);
  }
  unreachable?.close();
  await dashboard?.stop();
  await harness?.stop();
});

function unreachableKubeconfig(): string {
  return `apiVersion: v1\nkind: Config\nclusters: [{name: edge, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: edge, context: {cluster: edge, user: u}}]\ncurrent-context: edge\n`;
}

describe('failure taxonomy', () => {
  it('classes each failure once, and every view agrees', async () => {
    await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
    await harness.repo.write('fine.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: ${namespace}\ndata:\n  a: b\n`);
    await harness.repo.write('denied.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: denied\n  namespace: ${namespace}\ndata:\n  a: b\n`);
    await harness.repo.write('tripwire.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tripwire\n  namespace: ${namespace}\n`);
    await harness.repo.write('gadget.yaml', `apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: gizmo\n  namespace: ${namespace}\n`);
    await harness.repo.write('deploy.yaml', [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: two-replicas', `  namespace: ${namespace}`, 'spec:', '  replicas: "two"',
      '  selector: {matchLabels: {app: two}}', '  template:', '    metadata: {labels: {app: two}}', '    spec: {containers: [{name: app, image: {registry: docker.io}}]}', '',
    ].join('\n'));
    await harness.repo.commitAndPush('one object of each failure class');
    const poll = await harness.source.poll();
    await dashboard.queues.enqueue({ source: 'test', revision: poll.revision, cluster: 'shared', objectKey: `core/Namespace/_/${namespace}`, reason: 'git-change' });
    await expect.poll(async () => findCondition((await harness.statusStore.get('shared', `core/Namespace/_/${namespace}`))?.conditions, 'Ready')?.status, { timeout: 30_000 }).toBe('True');
    await expect.poll(async () => (await harness.connection.client.request<{ code?: number }>({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, query: { dryRun: 'All' }, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied' } }, what: 'probe the policy' }).then(() => 200, (error: { status?: number }) => error.status)), { timeout: 30_000 }).toBe(403);

    for (const objectKey of Object.values(keys)) await dashboard.queues.enqueue({ source: 'test', revision: poll.revision, cluster: 'shared', objectKey, reason: 'git-change' });
    await dashboard.queues.enqueue({ source: 'test', revision: poll.revision, cluster: 'edge', objectKey: keys.ready, reason: 'git-change' });

    const records = async () => {
      const found = await Promise.all([...Object.values(keys).map((key) => harness.statusStore.get('shared', key)), harness.statusStore.get('edge', keys.ready)]);
      return found.filter((record): record is ObjectStatus => record !== undefined);
    };
    await expect.poll(async () => (await records()).length, { timeout: 60_000 }).toBe(6);
    const queueFigures = async () => (await api<{ figures: ClusterQueueFigures[] }>('/api/queue')).figures;
    await expect.poll(async () => (await queueFigures()).reduce((sum, figures) => sum + figures.failingObjects, 0), { timeout: 60_000 }).toBe(4);

    // 1. Conditions.
    const status = async (cluster: string, key: string) => (await harness.statusStore.get(cluster, key))!;
    const expectConditions = async ([cluster, key]: [string, string], ready: string, reconciling: string, stalled: string, reason: string) => {
      const { conditions } = await status(cluster, key);
      expect({ key, ready: findCondition(conditions, 'Ready')?.status, reconciling: findCondition(conditions, 'Reconciling')?.status, stalled: findCondition(conditions, 'Stalled')?.status, reason: findCondition(conditions, 'Ready')?.reason })
        .toEqual({ key, ready, reconciling, stalled, reason });
    };
    await expectConditions(['shared', keys.ready], 'True', 'False', 'False', 'ReconciliationSucceeded');
    await expectConditions(['shared', keys.invalid], 'False', 'False', 'True', 'ApplyFailed');
    await expectConditions(['shared', keys.forbidden], 'False', 'False', 'False', 'Forbidden');
    await expectConditions(['shared', keys.waiting], 'False', 'True', 'False', 'KindNotServed');
    await expectConditions(['shared', keys.internal], 'False', 'False', 'False', 'InternalError');
    await expectConditions(['edge', keys.ready], 'False', 'False', 'False', 'FetchFailed');

    // Messages are sentences: no Go struct dump, no internal key; the raw text stays in detail.
    const invalid = await status('shared', keys.invalid);
    const invalidMessage = findCondition(invalid.conditions, 'Ready')!.message;
    expect(invalidMessage).toContain(`Deployment ${namespace}/two-replicas`);
    expect(invalidMessage).toMatch(/\.spec\.(replicas|template\.spec\.containers\[name="app"\]\.image): expected/);
    expect(invalidMessage).not.toMatch(/valueUnstructured|&\{|0xc0/);
    expect(invalid.failure).toMatchObject({ category: 'invalid', code: 'Invalid' });
    expect(invalid.failure?.detail).toMatch(/failed to create typed patch object/);
    for (const record of await records()) {
      for (const condition of record.conditions) expect(condition.message, `${record.objectKey} ${condition.type}`).not.toMatch(/(core|apps|example\.com)\/[A-Z]\w+\/[^ ]+\//);
    }
    expect(findCondition((await status('shared', keys.waiting)).conditions, 'Ready')?.message).toMatch(/waiting for Gadget \(example\.com\/v1\)/);

    // 2. The badge each cell shows.
    const matrix = await api<{ rows: { objectKey: string; cells: Record<string, { state: string }> }[] }>('/api/objects?pageSize=50');
    const badge = (cluster: string, key: string) => matrix.rows.find((row) => row.objectKey === key)?.cells[cluster]?.state;
    expect({
      ready: badge('shared', keys.ready), invalid: badge('shared', keys.invalid), forbidden: badge('shared', keys.forbidden),
      waiting: badge('shared', keys.waiting), internal: badge('shared', keys.internal), transient: badge('edge', keys.ready),
    }).toEqual({ ready: 'Ready', invalid: 'Stalled', forbidden: 'Failed', waiting: 'Waiting', internal: 'Failed', transient: 'Failed' });

    // 3. The overview's counts (the namespace is Ready too).
    const overview = await api<{ counts: Record<string, number> }>('/api/overview');
    expect(overview.counts).toMatchObject({ total: 7, Ready: 2, Reconciling: 0, Waiting: 1, Stalled: 1, Failed: 3 });

    // 4. The queue page: exactly the failing objects, each with its category.
    const failures = (await queueFigures()).flatMap((figures) => figures.failures.map((failure) => ({ cluster: figures.cluster, key: failure.objectKey, category: failure.category, terminal: failure.terminal })));
    expect(failures.sort((a, b) => `${a.cluster}${a.key}`.localeCompare(`${b.cluster}${b.key}`))).toEqual([
      { cluster: 'edge', key: keys.ready, category: 'transient', terminal: false },
      { cluster: 'shared', key: keys.invalid, category: 'invalid', terminal: true },
      { cluster: 'shared', key: keys.forbidden, category: 'forbidden', terminal: false },
      { cluster: 'shared', key: keys.internal, category: 'internal', terminal: false },
    ].sort((a, b) => `${a.cluster}${a.key}`.localeCompare(`${b.cluster}${b.key}`)));
    expect(overview.counts.Stalled! + overview.counts.Failed!).toBe(failures.length);
    const page = await dashboard.app.inject({ url: '/queue', headers: { authorization: `Bearer ${viewerToken}` } });
    expect(page.body).toContain(`Deployment ${namespace}/two-replicas`);
    expect(page.body).not.toContain(`>${keys.invalid}<`);

    // The detail page shows the raw text, folded away.
    const detail = await dashboard.app.inject({ url: `/objects/shared/apps/Deployment/${namespace}/two-replicas`, headers: { authorization: `Bearer ${viewerToken}` } });
    expect(detail.body).toContain('id="failure-detail"');
  });
});
