// A revision that removes more than half of a source's objects deletes nothing until someone
// confirms it on the dashboard, which lists every object it would delete.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let harness: PipelineHarness;
let dashboard: DashboardFixture;
const namespace = `mass-${randomUUID().slice(0, 6)}`;
const names = ['a', 'b', 'c', 'd'];
const key = (name: string) => `core/ConfigMap/${namespace}/${name}`;
const exists = async (name: string) => (await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) !== undefined;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { pruneHolds: true });
  dashboard = await startDashboardFixture(inject('redisUrl'), { store: harness.statusStore, clusters: ['shared'] });
});
afterAll(async () => {
  await dashboard?.stop();
  await harness?.stop();
});

describe('mass prune', () => {
  it('prunes a small share at once, holds a large one until an operator confirms it on the dashboard', async () => {
    await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
    for (const name of names) await harness.repo.write(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n`);
    await harness.pushAndReconcile('a namespace and four ConfigMaps');
    expect(await Promise.all(names.map(exists))).toEqual([true, true, true, true]);

    // One of five: pruned at once.
    await harness.repo.delete('a.yaml');
    await harness.pushAndReconcile('remove one');
    expect(await exists('a')).toBe(false);

    // Three of four (the namespace, b, c): held.
    await harness.repo.delete('b.yaml');
    await harness.repo.delete('c.yaml');
    await harness.repo.delete('ns.yaml');
    const { poll, results } = await harness.pushAndReconcile('remove most of the rest');
    for (const name of ['b', 'c']) {
      // Waiting, not failing: the run answers with a requeue, and its record says what it waits for.
      expect(results.get(key(name))).toEqual({ kind: 'requeue', afterMs: 60_000 });
      const held = await harness.statusStore.get(harness.cluster, key(name));
      expect(held?.failure?.code).toBe('PruneAwaitingConfirmation');
      expect(findCondition(held?.conditions, 'Ready')?.message).toMatch(new RegExp(`ConfigMap ${namespace}/${name} was removed from Git at [0-9a-f]{12}, with 3 of the 4 objects of source test on cluster shared \\(75%\\), more than the 50%`));
    }
    expect(await Promise.all(['b', 'c', 'd'].map(exists))).toEqual([true, true, true]);
    expect((await getObject(harness.connection, { apiVersion: 'v1', kind: 'Namespace', name: namespace }))?.metadata.deletionTimestamp).toBeUndefined();
    const waiting = await harness.statusStore.get(harness.cluster, key('b'));
    expect(waiting?.failure?.category).toBe('waiting');
    expect(findCondition(waiting?.conditions, 'Ready')?.reason).toBe('PruneAwaitingConfirmation');

    // The dashboard lists every object it would delete; a viewer may not confirm.
    const page = await dashboard.app.inject({ url: '/prunes', headers: { authorization: `Bearer ${viewerToken}` } });
    for (const name of ['b', 'c']) expect(page.body).toContain(`<li>ConfigMap ${namespace}/${name}</li>`);
    expect(page.body).toContain(`<li>Namespace ${namespace}</li>`);
    expect(page.body).not.toContain(`ConfigMap ${namespace}/d<`);
    const denied = await dashboard.app.inject({ method: 'POST', url: `/api/prune-holds/shared/test/confirm?revision=${poll.revision}`, headers: { authorization: `Bearer ${viewerToken}` } });
    expect(denied.statusCode).toBe(403);
    expect(await harness.reconcileAt(poll.revision, key('b'), 'resync')).toEqual({ kind: 'requeue', afterMs: 60_000 });

    const confirmed = await dashboard.app.inject({ method: 'POST', url: `/api/prune-holds/shared/test/confirm?revision=${poll.revision}`, headers: { authorization: `Bearer ${operatorToken}` } });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({ state: 'confirmed', confirmedBy: 'otto' });
    for (const name of ['b', 'c']) await harness.reconcileAt(poll.revision, key(name), 'manual');
    expect(await Promise.all(['b', 'c', 'd'].map(exists))).toEqual([false, false, true]);
    expect((await dashboard.app.inject({ url: '/api/prune-holds', headers: { authorization: `Bearer ${viewerToken}` } })).json()).toEqual([]);
  });
});
