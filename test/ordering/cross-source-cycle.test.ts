// A depends-on cycle whose members live in two sources, on the rig: when a revision is read, each
// member follows what it waits for into the other source's declarations (at the revision that
// source applies now) and back, so every member says DependencyCycle, naming all of them with their
// sources, and nothing in it is applied; the change that breaks it starts them, woken, not rechecked
// (the recheck is ten minutes).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { getObject } from '@tidemark/cluster';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `xcycle-${tag}`;
let stack: OrderingStack;

const key = (name: string) => `core/ConfigMap/${namespace}/${name}`;
const configMap = (name: string, dependsOn?: string) => stringify({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: { name, namespace, ...(dependsOn ? { annotations: { 'tidemark.dev/depends-on': dependsOn } } : {}) },
  data: { name },
});
const exists = async (name: string) => (await getObject(stack.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) !== undefined;

const readyCondition = (objectKey: string) => stack.readyCondition(objectKey);

beforeAll(async () => {
  stack = await startOrderingStack({
    kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000,
    sources: { 'tenant-a': {}, 'tenant-b': {} },
  });
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
});
afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('a dependency cycle across two sources', () => {
  it('is reported on every member, nothing in it is applied, and the change that breaks it starts them all', async () => {
    const tenantA = stack.repos['tenant-a']!;
    const tenantB = stack.repos['tenant-b']!;
    // a1 -> (tenant-b) b -> (tenant-a) a2 -> a1: one edge inside tenant-a's revision, two across.
    await tenantA.write('a1.yaml', configMap('a1', `tenant-b:v1/ConfigMap/${namespace}/b`));
    await tenantA.write('a2.yaml', configMap('a2', `v1/ConfigMap/${namespace}/a1`));
    const revisionA = await tenantA.commitAndPush('a1 needs tenant-b\'s b; a2 needs a1');
    await expect.poll(() => readyCondition(key('a1')), { timeout: 60_000, interval: 200 }).toMatch(/^False DependencyNotReady: /);
    await tenantB.write('b.yaml', configMap('b', `tenant-a:v1/ConfigMap/${namespace}/a2`));
    await tenantB.commitAndPush('b needs tenant-a\'s a2: a cycle');

    const members = `ConfigMap ${namespace}/a1 \\(source tenant-a\\), ConfigMap ${namespace}/a2 \\(source tenant-a\\), ConfigMap ${namespace}/b \\(source tenant-b\\) depend on each other across sources; nothing in the cycle is applied until Git breaks it\\.$`;
    for (const [name, file] of [['a1', 'a1.yaml'], ['a2', 'a2.yaml'], ['b', 'b.yaml']] as const) {
      await expect.poll(() => readyCondition(key(name)), { timeout: 60_000, interval: 200 })
        .toMatch(new RegExp(`^False DependencyCycle: ${file}: ConfigMap ${namespace}/${name}: ${members}`));
    }
    expect(await Promise.all(['a1', 'a2', 'b'].map(exists))).toEqual([false, false, false]);

    // tenant-b drops its dependency: b is applied, and wakes a1, which wakes a2, at tenant-a's same revision.
    await tenantB.write('b.yaml', configMap('b'));
    const revisionB = await tenantB.commitAndPush('b needs nothing: the cycle is broken');
    await expect.poll(() => stack.readyAt(key('b'), revisionB), { timeout: 60_000, interval: 200 }).toBe(true);
    await expect.poll(() => stack.readyAt(key('a1'), revisionA), { timeout: 60_000, interval: 200 }).toBe(true);
    await expect.poll(() => stack.readyAt(key('a2'), revisionA), { timeout: 60_000, interval: 200 }).toBe(true);
    expect(await Promise.all(['a1', 'a2', 'b'].map(exists))).toEqual([true, true, true]);
  });
});
