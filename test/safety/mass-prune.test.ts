// A revision that removes more than half of a source's objects deletes nothing until someone
// confirms it on the dashboard, which lists every object it would delete. The hold is keyed by
// what it would remove: an earlier small prune at the same revision does not cover a change that
// removes the rest (issue 34 item 3: the Source's path changed at the same commit).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { GitSource } from '@tidemark/git-source';
import { reconcile } from '@tidemark/pipeline';
import { kubectl } from '@tidemark/testing';
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

  it('decides again when the removed set grows at the same revision: a path change after one prune is held, not 19 deletes', async () => {
    const spread = `spread-${randomUUID().slice(0, 6)}`;
    const many = Array.from({ length: 20 }, (_, index) => `cm-${index}`);
    const spreadKey = (name: string) => `core/ConfigMap/${spread}/${name}`;
    const present = async (name: string) => (await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace: spread, name })) !== undefined;
    await kubectl(inject('kubeconfigPath'), ['create', 'namespace', spread]);
    for (const name of many) await harness.repo.write(`app/${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${spread}\n`);
    await harness.repo.write('elsewhere/README.md', 'nothing here\n');
    await harness.pushAndReconcile('twenty ConfigMaps');
    // One of twenty goes: pruned at once (and its record with it).
    await harness.repo.delete('app/cm-0.yaml');
    const { poll } = await harness.pushAndReconcile('remove one');
    expect(await present('cm-0')).toBe(false);

    // The Source's path changes to a folder with nothing in it, at the same commit: the other 19 leave Git.
    const cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-mass-moved-'));
    const moved = new GitSource({ spec: { ...harness.source.spec, path: 'elsewhere' }, cacheDir });
    try {
      await moved.open();
      expect((await moved.poll()).revision).toBe(poll.revision);
      const deps = { ...harness.deps, desired: { readObject: async (_source: string, revision: string, objectKey: string, cluster: string) => {
        const found = await moved.readObject(revision, objectKey, cluster);
        return found ? { object: found.object as never, path: found.path } : undefined;
      } } };
      for (const name of many.slice(1)) {
        const result = await reconcile({ source: 'test', revision: poll.revision, cluster: harness.cluster, objectKey: spreadKey(name), reason: 'git-removed' }, deps).catch((error: unknown) => error);
        expect(result, name).toEqual({ kind: 'requeue', afterMs: 60_000 });
      }
      expect((await Promise.all(many.slice(1).map(present))).every(Boolean)).toBe(true);
      const held = await harness.statusStore.get(harness.cluster, spreadKey('cm-7'));
      expect(held?.failure?.code).toBe('PruneAwaitingConfirmation');
      // Every object the source still has here (d of the first case, and the 19) would go: 100%.
      expect(findCondition(held?.conditions, 'Ready')?.message).toMatch(/with (\d+) of the \1 objects of source test on cluster shared \(100%\)/);
      // A confirmation names the hold it was shown: one decided before (the small prune) confirms nothing.
      const [shown] = (await dashboard.app.inject({ url: '/api/prune-holds', headers: { authorization: `Bearer ${viewerToken}` } })).json() as { decidedAt: string; removed: string[] }[];
      expect(shown?.removed).toContain(spreadKey('cm-7'));
      const confirm = (decidedAt: string) => dashboard.app.inject({ method: 'POST', url: `/api/prune-holds/shared/test/confirm?revision=${poll.revision}&decidedAt=${encodeURIComponent(decidedAt)}`, headers: { authorization: `Bearer ${operatorToken}` } });
      expect((await confirm('2000-01-01T00:00:00.000Z')).statusCode).toBe(404);
      expect((await confirm(shown!.decidedAt)).statusCode).toBe(200);
    } finally {
      await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', spread, '--wait=false']).catch(() => undefined);
      await moved.close();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
