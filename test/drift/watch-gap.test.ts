// A hand edit made while no watch was open on its kind (the kind's watch had not started yet after
// its first apply, or it is listing again after a broken stream) is found when the watch lists:
// the owned-object watches check each listed object as they check each event, so the edit is
// repaired in moments, not at the next resync. An object whose newest write is Tidemark's own is
// left alone. So is a deletion made while no watch was open (no DELETED event will ever report it):
// the object missing from the list wakes its owner. A process that watched without the cluster's
// lease (for its cache only) saw changes it could not act on: when it takes the lease it lists again.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClusterConnection } from '@tidemark/cluster';
import type { ReconcileJob } from '@tidemark/contracts';
import { startOwnedWatches, type OwnedWatches } from '@tidemark/watches';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `watch-gap-${randomUUID().slice(0, 8)}`;
const edited = `core/ConfigMap/${namespace}/edited`;
const untouched = `core/ConfigMap/${namespace}/untouched`;
const gone = `core/ConfigMap/${namespace}/gone`;
const handover = `core/ConfigMap/${namespace}/handover`;
let harness: PipelineHarness;
let redis: Redis;
let connection: ClusterConnection;
let watches: OwnedWatches | undefined;

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  mode: from-git\n`;

beforeAll(async () => {
  // No watches of the harness's own: the test opens them after the edit.
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  redis = new Redis(inject('redisUrl'));
  connection = ClusterConnection.connect({ cluster: harness.cluster, kubeconfig: inject('kubeconfig') });
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('edited.yaml', configMap('edited'));
  await harness.repo.write('untouched.yaml', configMap('untouched'));
  await harness.repo.write('gone.yaml', configMap('gone'));
  await harness.repo.write('handover.yaml', configMap('handover'));
  await harness.pushAndReconcile('a namespace and four ConfigMaps');
});
afterAll(async () => {
  await watches?.stop();
  connection?.close();
  redis?.disconnect();
  await harness?.stop();
});

/** editByHand changes a ConfigMap's data with a field manager of its own, as kubectl would. */
async function editByHand(name: string): Promise<void> {
  await harness.connection.asManager('kubectl-patch').client.request({
    method: 'PATCH', path: `/api/v1/namespaces/${namespace}/configmaps/${name}`, query: { fieldManager: 'kubectl-patch', force: 'true' },
    contentType: 'application/apply-patch+yaml', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { mode: 'by-hand' } }, what: 'edit by hand',
  });
}

/** watchAnew stops the watches of the case before, starts new ones that record what they enqueue, and waits for their lists. */
async function watchAnew(): Promise<ReconcileJob[]> {
  await watches?.stop();
  const wakes: ReconcileJob[] = [];
  watches = startOwnedWatches({ clusters: new Map([[harness.cluster, connection]]), statusStore: harness.statusStore, redis, refreshMs: 500, queues: { enqueue: async (job) => { wakes.push(job); } } });
  await watches.ready();
  return wakes;
}

/** wakesOf waits (up to 20 s) until `objectKey` was woken, and returns the reasons it was woken for. */
async function wakesOf(wakes: readonly ReconcileJob[], objectKey: string): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  while (!wakes.some((job) => job.objectKey === objectKey) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return wakes.filter((job) => job.objectKey === objectKey).map((job) => job.reason);
}

describe('an edit made while no watch was open on its kind', () => {
  it('is found when the watch lists, and only that object is woken', async () => {
    await editByHand('edited');
    const wakes = await watchAnew();
    expect(await wakesOf(wakes, edited)).toEqual(['drift']);
    // Every listed object has been looked at by now (the edited one was among them); the others stay asleep.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(wakes.map((job) => job.objectKey).filter((key) => key !== edited)).toEqual([]);
    expect(wakes.map((job) => job.objectKey)).not.toContain(untouched);
  });
});

describe('a deletion made while no watch was open on its kind', () => {
  it('is found when the watch lists: the missing object\'s owner is woken, the others are not', async () => {
    await watches?.stop();
    await harness.connection.client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/configmaps/gone`, what: 'delete by hand' });
    const wakes = await watchAnew();
    expect(await wakesOf(wakes, gone)).toEqual(['drift']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The edited one of the case above is still edited (nothing ran its wake), so it is woken again; the untouched one never.
    expect(wakes.map((job) => job.objectKey).filter((key) => key !== gone && key !== edited)).toEqual([]);
  });
});

describe('a change seen by a process that did not hold the lease', () => {
  it('wakes its owner when that process takes the lease and lists again', async () => {
    await watches?.stop();
    const lease = harness.statusStore.keys.watchLease(harness.cluster);
    await redis.set(lease, 'another-process', 'PX', 60_000);
    const wakes = await watchAnew();
    await editByHand('handover');
    // The watch (kept for the cache) sees the edit; without the lease it enqueues nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(wakes.map((job) => job.objectKey)).not.toContain(handover);
    await redis.del(lease);
    expect(await wakesOf(wakes, handover)).toEqual(['drift']);
    expect(wakes.map((job) => job.objectKey)).not.toContain(untouched);
  });
});
