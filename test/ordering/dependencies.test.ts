// Ordering end to end on the rig: a CRD and its custom resource in one commit, a three-level
// depends-on chain ending in a Deployment whose status a test writes by hand, a cycle, sync waves
// and a missing dependency. The waiting objects' own recheck is ten minutes, so everything that
// starts within a test was woken by its dependency's run or a watch, never by a timer or a backoff.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `ord-${tag}`;
// The custom resources' group sorts before apiextensions.k8s.io, so their jobs run before the CRD's.
const group = `acme-${tag}.example`;
let stack: OrderingStack;

const configMap = (name: string, annotations: Record<string, string> = {}) =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations }, data: { name } });
const deployment = (name: string, annotations: Record<string, string> = {}) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, annotations },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } } },
});
const configMapKey = (name: string) => `core/ConfigMap/${namespace}/${name}`;
const exists = async (name: string) => (await getObject(stack.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) !== undefined;

/** rollOut writes a Deployment's status by hand, as its controller would: one replica, available. */
async function rollOut(name: string): Promise<void> {
  const status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'by hand' }] };
  await kubectl(inject('kubeconfigPath'), ['patch', 'deployment', name, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}

async function waitingMessage(key: string): Promise<string | undefined> {
  const record = await stack.status(key);
  const condition = findCondition(record?.conditions, 'Ready');
  return condition?.status === 'False' ? `${condition.reason}: ${condition.message}` : undefined;
}

beforeAll(async () => {
  stack = await startOrderingStack({ kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000 });
  await stack.repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
});
afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'customresourcedefinition', `widgets.${group}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('ordering', () => {
  it('applies a CRD and its custom resource from one commit: the resource waits for the CRD, saying so, and starts when it is Established', async () => {
    await stack.repo.write('crd.yaml', stringify({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    }));
    await stack.repo.write('widget.yaml', stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'first', namespace }, spec: { size: 3 } }));
    const revision = await stack.repo.commitAndPush('a CRD and a Widget');
    const widgetKey = `${group}/Widget/${namespace}/first`;
    await expect.poll(() => stack.readyAt(widgetKey, revision), { timeout: 60_000, interval: 200 }).toBe(true);
    const history = await stack.reconciler.statusStore.history(stack.cluster, widgetKey);
    expect(history.map((run) => run.result)).not.toContain('failed');
    // Whether the Widget had to wait at all is a race: on a quiet machine the CRD can be Established before the
    // Widget's first run starts (a clean-clone CI run saw that), and then there is nothing to wait for. When it
    // waited, each wait is the order stage's (a Widget sent before its CRD is served would wait with the API
    // server's 404 instead, and fail this), and no run failed.
    const waits = history.filter((run) => run.result === 'waiting').map((run) => run.message);
    // The Namespace comes in the same commit: under load the Widget may also wait for it, without backoff all the same.
    for (const message of waits) expect(message).toMatch(new RegExp(`^waiting for (CRD widgets\\.${group.replace('.', '\\.')} to be (Established|served)|Namespace ${namespace} \\(its Namespace\\) to be Ready: it has not been reconciled on this cluster yet)\\.$`));
  });

  it('holds a three-level chain until each level is Ready, and starts each the moment the one below is', async () => {
    await stack.repo.write('chain/bottom.yaml', deployment('bottom'));
    await stack.repo.write('chain/middle.yaml', configMap('middle', { 'tidemark.dev/depends-on': `apps/v1/Deployment/${namespace}/bottom` }));
    await stack.repo.write('chain/top.yaml', configMap('top', { 'tidemark.dev/depends-on': `v1/ConfigMap/${namespace}/middle` }));
    const revision = await stack.repo.commitAndPush('a chain: top needs middle needs bottom');
    await expect.poll(() => waitingMessage(configMapKey('middle')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^DependencyNotReady: waiting for Deployment ${namespace}/bottom \\(tidemark.dev/depends-on\\) to be Ready: \\w+: Deployment ${namespace}/bottom has 0 of 1 replicas`));
    await expect.poll(() => waitingMessage(configMapKey('top')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^DependencyNotReady: waiting for ConfigMap ${namespace}/middle \\(tidemark.dev/depends-on\\) to be Ready: DependencyNotReady: waiting for Deployment`));
    expect([await exists('middle'), await exists('top')]).toEqual([false, false]);

    await rollOut('bottom');
    await expect.poll(() => stack.readyAt(configMapKey('top'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
    expect([await exists('middle'), await exists('top')]).toEqual([true, true]);
    expect((await stack.status(configMapKey('middle')))?.failure).toBeUndefined();
  });

  it('reports a cycle on every member and applies none of it, until Git breaks it', async () => {
    await stack.repo.write('cycle/a.yaml', configMap('cycle-a', { 'tidemark.dev/depends-on': `v1/ConfigMap/${namespace}/cycle-b` }));
    await stack.repo.write('cycle/b.yaml', configMap('cycle-b', { 'tidemark.dev/depends-on': `v1/ConfigMap/${namespace}/cycle-a` }));
    await stack.repo.commitAndPush('a cycle');
    for (const name of ['cycle-a', 'cycle-b']) {
      await expect.poll(() => waitingMessage(configMapKey(name)), { timeout: 30_000, interval: 200 })
        .toBe(`DependencyCycle: cycle/${name.slice(-1)}.yaml: ConfigMap ${namespace}/${name}: ConfigMap ${namespace}/cycle-a, ConfigMap ${namespace}/cycle-b depend on each other; nothing in the cycle is applied until Git breaks it.`);
    }
    expect([await exists('cycle-a'), await exists('cycle-b')]).toEqual([false, false]);
    expect((await stack.status(configMapKey('cycle-a')))?.failure?.category).toBe('waiting');

    await stack.repo.write('cycle/b.yaml', configMap('cycle-b'));
    const revision = await stack.repo.commitAndPush('break the cycle');
    // cycle-a did not change: only cycle-b's run, finishing Ready, can wake it.
    await expect.poll(() => stack.readyAt(configMapKey('cycle-a'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
    expect([await exists('cycle-a'), await exists('cycle-b')]).toEqual([true, true]);
  });

  it('starts sync wave 1 only when wave 0 is Ready, not waiting for a Placement beside it', async () => {
    await stack.repo.write('waves/gate.yaml', deployment('gate', { 'tidemark.dev/sync-wave': '0' }));
    await stack.repo.write('waves/after.yaml', configMap('after', { 'tidemark.dev/sync-wave': '1' }));
    await stack.repo.write('waves/before.yaml', configMap('before', { 'tidemark.dev/sync-wave': '-1' }));
    // Read, never applied, so never Ready: wave 1 must not wait for it.
    await stack.repo.write('waves/placement.yaml', stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'elsewhere', namespace }, spec: { rules: [{ paths: ['elsewhere/'], clusterSelector: { matchLabels: { env: 'nowhere' } } }] } }));
    const revision = await stack.repo.commitAndPush('three waves');
    await expect.poll(() => waitingMessage(configMapKey('after')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^DependencyNotReady: waiting for Deployment ${namespace}/gate \\(sync wave 0\\) to be Ready`));
    expect(await exists('after')).toBe(false);
    expect(await stack.readyAt(configMapKey('before'), revision)).toBe(true);

    await rollOut('gate');
    await expect.poll(() => stack.readyAt(configMapKey('after'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
  });

  it('says so when a dependency exists nowhere, and names an unreadable annotation', async () => {
    await stack.repo.write('missing/lonely.yaml', configMap('lonely', { 'tidemark.dev/depends-on': `v1/ConfigMap/${namespace}/nowhere` }));
    await stack.repo.write('missing/garbled.yaml', configMap('garbled', { 'tidemark.dev/depends-on': 'postgres' }));
    await stack.repo.commitAndPush('a dependency that is nowhere, and one that is not a reference');
    await expect.poll(() => waitingMessage(configMapKey('lonely')), { timeout: 30_000, interval: 200 })
      .toBe(`DependencyNotReady: waiting for ConfigMap ${namespace}/nowhere (tidemark.dev/depends-on): neither Git nor the cluster has it.`);
    await expect.poll(() => waitingMessage(configMapKey('garbled')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^InvalidDependency: missing/garbled.yaml: ConfigMap ${namespace}/garbled: tidemark.dev/depends-on: "postgres" is not a dependency: write`));
    expect(findCondition((await stack.status(configMapKey('garbled')))?.conditions, 'Stalled')?.status).toBe('True');
    expect(await exists('lonely')).toBe(false);
  });
});
