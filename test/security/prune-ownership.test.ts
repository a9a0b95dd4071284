// Hole 1: prune is not a confused deputy. Whoever can write a CR's status (its inventory), or
// forge a job, must not make Tidemark delete what it did not apply for that very Git object.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { ClusterConnection} from '@tidemark/cluster';
import { applyObject, applyStatus, getObject } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { installBuiltinCrds } from '@tidemark/conversion';

const id = randomUUID().slice(0, 8);
const team = `team-a-${id}`;
const victims = `victims-${id}`;
const webAppKey = `tidemark.dev/WebApp/${team}/shop`;
let harness: PipelineHarness;
let intruder: ClusterConnection;

function webApp(config: boolean): string {
  return `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${team}\nspec:\n  image: nginx:1.27\n` +
    (config ? '  features:\n    config:\n      enabled: true\n      data:\n        A: b\n' : '');
}

const victim = (name: string, annotations: Record<string, string> = {}): KubernetesManifest => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: victims, annotations }, data: { keep: 'me' },
});
const live = (name: string, namespace = victims) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const entry = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: victims, name });

/** forgeInventory writes the WebApp's status.inventory as someone with access to webapps/status. */
async function forgeInventory(extra: { apiVersion: string; kind: string; namespace: string; name: string }[]): Promise<void> {
  const cr = (await getObject(harness.connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', namespace: team, name: 'shop' }))!;
  const inventory = (cr.status as { inventory: unknown[] }).inventory;
  await applyStatus(intruder, cr, { inventory: [...inventory, ...extra] });
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  intruder = harness.connection.asManager('intruder');
  await installBuiltinCrds(harness.connection, harness.kinds);
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', victims]);
  // Not Tidemark's: created by someone else.
  await applyObject(intruder, victim('coredns'));
  // Claims to be the WebApp's, but Tidemark never applied it.
  await applyObject(intruder, victim('forged-owner', { 'tidemark.dev/owner': `test:${webAppKey}` }));
  // Issue 34, item 6: annotated for the WebApp under Tidemark's field manager name, by someone who may
  // patch it; only Tidemark's own record of what it applied tells it apart from the WebApp's objects.
  await kubectl(inject('kubeconfigPath'), ['apply', '--server-side', '--field-manager=tidemark', '-f', '-'], JSON.stringify(victim('manager-forged', { 'tidemark.dev/owner': `test:${webAppKey}` })));
  // Tidemark's, but for another source's Git object.
  await applyObject(harness.connection, victim('other-source', { 'tidemark.dev/owner': `other:core/ConfigMap/${victims}/other-source` }));
  await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${team}\n`);
  await harness.repo.write('shop.yaml', webApp(true));
  await harness.pushAndReconcile('add shop');
});
afterAll(async () => {
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', victims, '--wait=false']).catch(() => undefined);
  await harness?.stop();
});

describe('prune ownership', () => {
  it('prunes what the WebApp rendered, but not what a forged status inventory adds', async () => {
    await forgeInventory(['coredns', 'forged-owner', 'manager-forged', 'other-source'].map(entry));
    await harness.repo.write('shop.yaml', webApp(false));
    const { results } = await harness.pushAndReconcile('drop config');
    expect(results.get(webAppKey)).not.toBeInstanceOf(Error);
    // The ConfigMap the config feature rendered is pruned: real ownership still works.
    const rendered = await kubectl(inject('kubeconfigPath'), ['get', 'configmaps', '-n', team, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'name']);
    expect(rendered.trim()).toBe('');
    // Objects deleted through the forged inventory: 0.
    for (const name of ['coredns', 'forged-owner', 'manager-forged', 'other-source']) expect(await live(name), name).toBeDefined();
    const status = await harness.statusStore.get(harness.cluster, webAppKey);
    expect(status?.warnings?.join('\n')).toMatch(new RegExp(`ConfigMap ${victims}/coredns carries no tidemark.dev/owner annotation`));
    expect(status?.warnings?.join('\n')).toMatch(/forged-owner names .* but Tidemark's field manager tidemark did not apply that annotation/);
    expect(status?.warnings?.join('\n')).toMatch(/other-source is owned by other:/);
    expect(status?.warnings?.join('\n')).toMatch(/manager-forged names .* as its owner, but Tidemark's own record of what it applied for .* does not list it/);
    const events = await kubectl(inject('kubeconfigPath'), ['get', 'events', '-n', team, '--field-selector', 'reason=Orphaned', '-o', 'jsonpath={.items[*].message}']);
    expect(events).toMatch(/coredns/);
  });

  it('keeps them too when the WebApp leaves Git, while the WebApp and what it rendered go', async () => {
    await forgeInventory(['coredns', 'forged-owner', 'manager-forged', 'other-source'].map(entry));
    await harness.repo.delete('shop.yaml');
    const { results } = await harness.pushAndReconcile('remove shop');
    expect(results.get(webAppKey)).toEqual({ kind: 'done' });
    expect(await getObject(harness.connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', namespace: team, name: 'shop' })).toBeUndefined();
    expect(await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: team, name: 'shop' })).toBeUndefined();
    for (const name of ['coredns', 'forged-owner', 'manager-forged', 'other-source']) expect(await live(name), name).toBeDefined();
  });

  it('a forged removal job deletes nothing that is not this Git object\'s own', async () => {
    for (const name of ['coredns', 'forged-owner', 'manager-forged', 'other-source']) {
      const outcome = await harness.reconcileKey(`core/ConfigMap/${victims}/${name}`, 'git-removed');
      expect(outcome).toEqual({ kind: 'done' });
      expect(await live(name), name).toBeDefined();
    }
  });

  it('an object that left Git but was since applied for another source stays', async () => {
    const key = `core/ConfigMap/${team}/shared`;
    await harness.repo.write('shared.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: ${team}\n`);
    await harness.pushAndReconcile('add shared');
    expect((await live('shared', team))?.metadata.annotations?.['tidemark.dev/owner']).toBe(`test:${key}`);
    // Another source now declares and applies it.
    await applyObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: team, annotations: { 'tidemark.dev/owner': `other:${key}` } } });
    await harness.repo.delete('shared.yaml');
    await harness.pushAndReconcile('drop shared');
    expect(await live('shared', team)).toBeDefined();
  });
});
