// The pipeline end to end on the rig for plain manifests: git push → poll → reconcile → cluster.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { findCondition, TerminalError } from '@tidemark/contracts';
import { reconcile } from '@tidemark/pipeline';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `plain-${randomUUID().slice(0, 8)}`;
let harness: PipelineHarness;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
});
afterAll(async () => harness?.stop());

const configMapKey = `core/ConfigMap/${namespace}/settings`;

describe('plain manifests', () => {
  it('applies what is pushed, with status in the store', async () => {
    await harness.repo.write('app/namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
    await harness.repo.write('app/settings.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  level: info\n`);
    const { poll, results } = await harness.pushAndReconcile('add settings');
    expect(results.get(configMapKey)).toEqual({ kind: 'requeue', afterMs: 300_000, resync: true });

    const live = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    expect((live as { data?: unknown }).data).toEqual({ level: 'info' });
    expect(live?.metadata.annotations?.['tidemark.dev/owner']).toBe(`test:${configMapKey}`);

    const status = await harness.statusStore.get(harness.cluster, configMapKey);
    expect(status?.lastAppliedRevision).toBe(poll.revision);
    expect(status?.path).toBe('app/settings.yaml');
    expect(findCondition(status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    const history = await harness.statusStore.history(harness.cluster, configMapKey);
    expect(history[0]).toMatchObject({ result: 'succeeded', changes: { created: 1 } });
  });

  it('leaves an unchanged object unwritten when another object in the repo changes', async () => {
    const before = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    const outcome = await harness.reconcileKey(configMapKey, 'resync');
    expect(outcome).toEqual({ kind: 'requeue', afterMs: 300_000, resync: true });
    const after = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    const history = await harness.statusStore.history(harness.cluster, configMapKey);
    expect(history[0]?.changes).toMatchObject({ created: 0, configured: 0, unchanged: 1 });
  });

  it('updates a changed object', async () => {
    await harness.repo.write('app/settings.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  level: debug\n`);
    const { poll } = await harness.pushAndReconcile('debug logging');
    expect(poll.changes.map((change) => [change.objectKey, change.change])).toEqual([[configMapKey, 'changed']]);
    const live = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    expect((live as { data?: unknown }).data).toEqual({ level: 'debug' });
  });

  it('stalls on an invalid manifest with the API server message, and applies none of it', async () => {
    await harness.repo.write('app/bad.yaml', `apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: ${namespace}\nspec:\n  ports:\n    - port: 99999\n`);
    const { results } = await harness.pushAndReconcile('a bad service');
    const failure = results.get(`core/Service/${namespace}/bad`);
    expect(failure).toBeInstanceOf(TerminalError);
    const status = await harness.statusStore.get(harness.cluster, `core/Service/${namespace}/bad`);
    expect(findCondition(status?.conditions, 'Stalled')).toMatchObject({ status: 'True' });
    expect(findCondition(status?.conditions, 'Ready')?.message).toMatch(/99999/);
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'Service', namespace, name: 'bad' })).toBeUndefined();
    // The same spec is not retried: the run is skipped without a new history entry, and its outcome
    // carries the stall, which is what fills the queue's stalled cache (the record is the authority).
    const historyBefore = await harness.statusStore.history(harness.cluster, `core/Service/${namespace}/bad`);
    expect(await harness.reconcileKey(`core/Service/${namespace}/bad`, 'resync')).toEqual({ kind: 'done', stalled: { code: expect.any(String), message: expect.stringMatching(/99999/) } });
    expect(await harness.statusStore.history(harness.cluster, `core/Service/${namespace}/bad`)).toHaveLength(historyBefore.length);
  });

  it('prunes an object removed from Git and forgets its status', async () => {
    await harness.repo.delete('app/settings.yaml');
    await harness.repo.delete('app/bad.yaml');
    const { results } = await harness.pushAndReconcile('drop settings');
    expect(results.get(configMapKey)).toEqual({ kind: 'done' });
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })).toBeUndefined();
    expect(await harness.statusStore.get(harness.cluster, configMapKey)).toBeUndefined();
  });
});

describe('suspend', () => {
  it('skips a suspended object until it is resumed', async () => {
    const key = `core/ConfigMap/${namespace}/held`;
    await harness.repo.write('app/held.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: ${namespace}\ndata:\n  v: "1"\n`);
    await harness.pushAndReconcile('add held');
    await harness.statusStore.setSuspended(harness.cluster, key, true);
    await harness.repo.write('app/held.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: ${namespace}\ndata:\n  v: "2"\n`);
    const { results } = await harness.pushAndReconcile('change held while suspended');
    expect(results.get(key)).toEqual({ kind: 'done' });
    const held = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'held' });
    expect((held as { data?: unknown }).data).toEqual({ v: '1' });

    await harness.statusStore.setSuspended(harness.cluster, key, false);
    await harness.reconcileKey(key, 'manual');
    const resumed = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'held' });
    expect((resumed as { data?: unknown }).data).toEqual({ v: '2' });
  });
});

describe('suspend during a run', () => {
  it('keeps a suspend that an operator makes while a run is under way', async () => {
    const key = `core/ConfigMap/${namespace}/suspended-mid-run`;
    await harness.repo.write('app/suspended-mid-run.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: suspended-mid-run\n  namespace: ${namespace}\n`);
    await harness.pushAndReconcile('add suspended-mid-run');
    expect((await harness.statusStore.get(harness.cluster, key))?.suspended).toBeUndefined();
    // The operator suspends after the run has read the object's status and before it writes it.
    const deps = {
      ...harness.deps,
      desired: {
        readObject: async (...args: Parameters<typeof harness.deps.desired.readObject>) => {
          await harness.statusStore.setSuspended(harness.cluster, key, true);
          return harness.deps.desired.readObject(...args);
        },
      },
    };
    const revision = (await harness.source.poll()).revision;
    await reconcile({ source: 'test', revision, cluster: harness.cluster, objectKey: key, reason: 'resync' }, deps);
    expect((await harness.statusStore.get(harness.cluster, key))?.suspended).toBe(true);
    expect(await harness.reconcileKey(key, 'resync')).toEqual({ kind: 'done' });
  });

  it('writes one record and one history entry per run, with the run\'s result', async () => {
    const key = `core/ConfigMap/${namespace}/history`;
    await harness.repo.write('app/history.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: history\n  namespace: ${namespace}\n`);
    await harness.pushAndReconcile('add history');
    await harness.reconcileKey(key, 'resync');
    const history = await harness.statusStore.history(harness.cluster, key);
    expect(history.map((entry) => entry.result)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('a run that loses its object', () => {
  it('stops before its next write when its signal aborts, and records no failure', async () => {
    const key = `core/ConfigMap/${namespace}/abandoned`;
    await harness.repo.write('app/abandoned.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: abandoned\n  namespace: ${namespace}\n`);
    const { poll } = await harness.repo.commitAndPush('abandoned').then(async () => ({ poll: await harness.source.poll() }));
    const controller = new AbortController();
    controller.abort(new Error('lease lost'));
    const job = { source: 'test', revision: poll.revision, cluster: harness.cluster, objectKey: key, reason: 'git-change' as const };
    await expect(reconcile(job, harness.deps, controller.signal)).rejects.toThrow('lease lost');
    expect(await harness.statusStore.get(harness.cluster, key)).toBeUndefined();
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'abandoned' })).toBeUndefined();
  });
});
