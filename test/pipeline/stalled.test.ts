// "Stalled" has one authority: the pipeline decides it from the object's spec, and the queue's
// marker follows the pipeline's verdicts, so retry and the dashboard always agree.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findCondition } from '@tidemark/contracts';
import { reconcile } from '@tidemark/pipeline';
import { ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `stalled-${randomUUID().slice(0, 8)}`;
const prefix = `stalled-${randomUUID().slice(0, 8)}`;
const key = `core/Service/${namespace}/bad`;
let harness: PipelineHarness;
let queues: ReconcileQueues;
let workers: ReconcileWorkers;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  queues = new ReconcileQueues({ connection: inject('redisUrl'), prefix, clusters: [harness.cluster] });
  await queues.start();
  workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix, clusters: [harness.cluster], onError: () => undefined });
  await workers.start((job, signal) => reconcile(job, harness.deps, signal));
});
afterAll(async () => {
  await workers?.close();
  await queues?.close();
  await harness?.stop();
});

async function processed(): Promise<number> {
  const figures = (await queues.figures()).find((entry) => entry.cluster === harness.cluster);
  return figures?.processingMs.count ?? 0;
}

describe('a stalled object at a new commit that leaves its spec unchanged', () => {
  it('stays stalled in the status store and in the queue, so retry finds it', async () => {
    await harness.repo.write('app/namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
    await harness.pushAndReconcile('a namespace');
    await harness.repo.write('app/bad.yaml', `apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: ${namespace}\nspec:\n  ports:\n    - port: 99999\n`);
    await harness.repo.commitAndPush('a bad service');
    const first = await harness.source.poll();
    const runsBefore = await processed();
    await queues.enqueue({ source: 'test', revision: first.revision, cluster: harness.cluster, objectKey: key, reason: 'git-change' });
    await expect.poll(processed, { timeout: 30_000 }).toBeGreaterThan(runsBefore);
    expect(findCondition((await harness.statusStore.get(harness.cluster, key))?.conditions, 'Stalled')?.status).toBe('True');

    // Another file changes; the bad Service does not. A resync wakes it at the new revision.
    await harness.repo.write('app/other.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: ${namespace}\n`);
    const { poll: second } = await harness.pushAndReconcile('an unrelated change');
    expect(second.changes.map((change) => change.objectKey)).not.toContain(key);
    const runsAtSecond = await processed();
    expect((await queues.enqueue({ source: 'test', revision: second.revision, cluster: harness.cluster, objectKey: key, reason: 'resync' })).status).toBe('queued');
    await expect.poll(processed, { timeout: 30_000 }).toBeGreaterThan(runsAtSecond);

    const status = await harness.statusStore.get(harness.cluster, key);
    expect(findCondition(status?.conditions, 'Stalled')?.status).toBe('True');
    expect(status?.lastAttemptedRevision).toBe(second.revision);
    // The queue agrees: a resync at this revision is refused, and retry finds the object.
    expect((await queues.enqueue({ source: 'test', revision: second.revision, cluster: harness.cluster, objectKey: key, reason: 'resync' })).status).toBe('stalled');
    expect(await queues.retryFailed(harness.cluster, key)).toBe(1);
  });
});
