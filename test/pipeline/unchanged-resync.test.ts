// A resync of an object nothing changed since its last full run costs a status-store read and a
// watch-cache lookup, not a pipeline run: no request to the API server, no status record or history
// entry written (a full run's entry for an identical run is folded into the last one, so the record's
// updatedAt is what tells). Anything that moves a resourceVersion the last apply left (a hand edit, even one whose
// watch wake-up was lost) makes the next resync a full run that repairs it, and a full run still
// happens once the last one is older than fullCheckIntervalMs, and for records from before the start.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findCondition, TerminalError } from '@tidemark/contracts';
import { unchangedJobs, type ReconcileObservation } from '@tidemark/pipeline';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `unchanged-${randomUUID().slice(0, 8)}`;
const key = `core/ConfigMap/${namespace}/settings`;
const observations: ReconcileObservation[] = [];
let harness: PipelineHarness;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { cache: true, pipeline: { fullCheckIntervalMs: 3_600_000 } });
  harness.deps.observer = { reconciled: (observation) => observations.push(observation) };
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('settings.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  mode: calm\n`);
  await harness.pushAndReconcile('a namespace and a ConfigMap');
  expect(findCondition((await harness.statusStore.get(harness.cluster, key))?.conditions, 'Ready')?.status).toBe('True');
});
afterAll(async () => {
  await harness?.stop();
});

/** resync runs one look-again at the ConfigMap and says what it cost. */
async function resync(): Promise<{ requests: number; historyAdded: number; recordRewritten: boolean; result: string | undefined; outcome: unknown }> {
  const before = { requests: harness.requests(), history: (await harness.statusStore.history(harness.cluster, key)).length, record: await harness.statusStore.get(harness.cluster, key) };
  observations.length = 0;
  const outcome = await harness.reconcileKey(key, 'resync');
  const record = await harness.statusStore.get(harness.cluster, key);
  return {
    requests: harness.requests() - before.requests,
    historyAdded: (await harness.statusStore.history(harness.cluster, key)).length - before.history,
    recordRewritten: record?.updatedAt !== before.record?.updatedAt,
    result: observations.find((observation) => observation.objectKey === key)?.result,
    outcome,
  };
}

async function liveMode(): Promise<string | undefined> {
  const live = await harness.connection.client.request<{ data?: Record<string, string> }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps/settings`, what: 'read the ConfigMap' });
  return live.data?.mode;
}

describe('a resync of an unchanged object', () => {
  it('runs no stage: no request, no status write, no history entry; it is looked at again at the resync interval', async () => {
    await harness.cacheCaughtUp(key);
    const cost = await resync();
    expect(cost).toMatchObject({ requests: 0, historyAdded: 0, recordRewritten: false, result: 'unchanged' });
    expect(cost.outcome).toEqual({ kind: 'requeue', afterMs: 300_000, resync: true });
  });

  it('a hand edit whose wake-up was lost is repaired by the next resync', async () => {
    const recorded = (await harness.statusStore.get(harness.cluster, key))!.appliedVersions![`/ConfigMap/${namespace}/settings`]!.resourceVersion;
    await harness.connection.asManager('kubectl-edit').client.request({
      method: 'PATCH', path: `/api/v1/namespaces/${namespace}/configmaps/settings`, query: { fieldManager: 'kubectl-edit', force: 'true' },
      contentType: 'application/apply-patch+yaml', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { mode: 'wild' } }, what: 'edit by hand',
    });
    expect(await liveMode()).toBe('wild');
    // The drift job the watch asks for is dropped here: only the routine resync looks.
    const cache = harness.watches!.cacheFor(harness.cluster)!;
    while (cache.heldVersion({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }) === recorded) await new Promise((resolve) => setTimeout(resolve, 20));
    const cost = await resync();
    expect(cost.result).toBe('ready');
    expect(cost.requests).toBeGreaterThan(0);
    expect(cost.recordRewritten).toBe(true);
    expect(await liveMode()).toBe('calm');
    // Repaired, it is unchanged again once the cache holds the version the repair left.
    await harness.cacheCaughtUp(key);
    expect(await resync()).toMatchObject({ requests: 0, historyAdded: 0, recordRewritten: false, result: 'unchanged' });
  });

  it('still gets a full run once its last one is older than fullCheckIntervalMs', async () => {
    const now = harness.deps.now;
    harness.deps.now = () => new Date(Date.now() + 3_600_000);
    try {
      const cost = await resync();
      expect(cost).toMatchObject({ recordRewritten: true, result: 'ready' });
    } finally {
      harness.deps.now = now;
    }
    await harness.cacheCaughtUp(key);
    expect(await resync()).toMatchObject({ requests: 0, historyAdded: 0, recordRewritten: false, result: 'unchanged' });
  });

  it('gets a full run when its record is older than the process (fullCheckAfter): a new release may render differently', async () => {
    // Later than every record so far (the test before wrote one an hour ahead).
    harness.deps.options = { ...harness.deps.options, fullCheckAfter: new Date(Date.now() + 2 * 3_600_000) };
    try {
      expect(await resync()).toMatchObject({ recordRewritten: true, result: 'ready' });
    } finally {
      harness.deps.options = { ...harness.deps.options, fullCheckAfter: undefined };
    }
  });

  it('a job that says Git or a Source changed runs the stages, even at the revision last applied', async () => {
    // A Source whose path changed, or that is being deleted, routes its objects again at the same commit
    // ('git-change', 'git-removed'): answered from the record, nothing would be applied or pruned.
    for (const reason of ['git-change', 'git-removed'] as const) {
      await harness.cacheCaughtUp(key);
      observations.length = 0;
      await harness.reconcileKey(key, reason);
      expect(observations.find((observation) => observation.objectKey === key)?.result, reason).not.toBe('unchanged');
    }
  });

  it('a run woken by a watch or a person always runs the stages', async () => {
    await harness.cacheCaughtUp(key);
    observations.length = 0;
    await harness.reconcileKey(key, 'manual');
    expect(observations.find((observation) => observation.objectKey === key)?.result).toBe('ready');
  });

  it('the sweep sees a suspension, a recorded drift and its repair at its next look', async () => {
    const record = (await harness.statusStore.get(harness.cluster, key))!;
    const slot = { source: 'test', revision: record.lastAppliedRevision!, cluster: harness.cluster, objectKey: key, reason: 'resync' as const };
    await harness.cacheCaughtUp(key);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
    await harness.statusStore.setSuspended(harness.cluster, key, true);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([false]);
    await harness.statusStore.setSuspended(harness.cluster, key, false);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
    await harness.statusStore.put({ ...record, drift: [{ path: '/data/mode', desired: 'calm', live: 'wild', manager: 'kubectl-edit', detectedAt: new Date().toISOString() }] });
    expect(await unchangedJobs([slot], harness.deps)).toEqual([false]);
    await harness.statusStore.put(record);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
  });

  it('the sweep: an object Git did not change in a new commit runs once at it, then is unchanged though its slot names the old commit; a forged revision is refused by a run', async () => {
    harness.deps.desired = { ...harness.deps.desired, admitRevision: (_source, revision) => harness.source.admitRevision(revision) };
    const old = (await harness.statusStore.get(harness.cluster, key))!.lastAppliedRevision!;
    const slot = { source: 'test', revision: old, cluster: harness.cluster, objectKey: key, reason: 'resync' as const };
    await harness.cacheCaughtUp(key);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
    await harness.repo.write('other.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: ${namespace}\ndata:\n  mode: calm\n`);
    const { poll } = await harness.pushAndReconcile('another ConfigMap');
    expect(await unchangedJobs([slot], harness.deps)).toEqual([false]);
    observations.length = 0;
    await harness.reconcileAt(old, key, 'resync');
    expect((await harness.statusStore.get(harness.cluster, key))?.lastAppliedRevision).toBe(poll.revision);
    await harness.cacheCaughtUp(key);
    expect(await unchangedJobs([slot], harness.deps)).toEqual([true]);
    expect(await harness.reconcileAt('f'.repeat(40), key, 'resync')).toBeInstanceOf(TerminalError);
  });

});

