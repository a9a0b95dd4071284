// Issue 34, item 12: a HealthRule's CEL ran synchronously on every worker's event loop with no cost
// limit, so seven nested `.all` blocked the reconciler. On the rig, through Git only: a HealthRule of
// seven nested comprehensions is refused at load (its kind falls back to the generic rule and says
// why) while the same push's ConfigMap is applied at once; a rule that passes the estimate but meets
// an object of long lists stops at its runtime budget and says HealthCheckFailed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from '../ordering/ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `cost-${tag}`;
const group = `cost-${tag}.example`;
let stack: OrderingStack;

const widgetKey = (name: string) => `${group}/Widget/${namespace}/${name}`;
const widget = (name: string, items: number) => stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, namespace }, spec: { a: Array.from({ length: items }, (_, index) => index) } });
const healthRule = (name: string, kind: string, current: string) =>
  stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'HealthRule', metadata: { name, namespace }, spec: { apiVersion: `${group}/v1`, kind, current } });
const crd = (kind: string) => {
  const plural = `${kind.toLowerCase()}s`;
  return stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
};
const sevenNested = 'spec.a.all(a, spec.a.all(b, spec.a.all(c, spec.a.all(d, spec.a.all(e, spec.a.all(f, spec.a.all(g, a + b + c + d + e + f + g >= 0)))))))';

beforeAll(async () => {
  stack = await startOrderingStack({
    kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000,
    sources: { tenant: {} },
  });
  await stack.repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await stack.repo.write('crds.yaml', `${crd('Widget')}---\n${crd('Gadget')}`);
  const revision = await stack.repo.commitAndPush('a namespace and two CRDs');
  for (let waited = 0; !(await stack.readyAt(`core/Namespace/_/${namespace}`, revision)); waited += 200) {
    if (waited > 60_000) throw new Error(`Namespace ${namespace} was not Ready within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'customresourcedefinition', `widgets.${group}`, `gadgets.${group}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('HealthRule cost', () => {
  it('refuses seven nested .all at load, naming the HealthRule and field, and the same push is applied at once', async () => {
    await stack.repo.write('rules/costly.yaml', healthRule('costly', 'Widget', sevenNested));
    await stack.repo.write('widgets/w.yaml', widget('w', 6));
    await stack.repo.write('config.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace }, data: { a: '1' } }));
    const revision = await stack.repo.commitAndPush('a costly HealthRule, a Widget and a ConfigMap');
    await expect.poll(() => stack.readyAt(`core/ConfigMap/${namespace}/after`, revision), { timeout: 30_000, interval: 200 }).toBe(true);
    await expect.poll(() => stack.readyAt(widgetKey('w'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
    expect(await stack.readyCondition(widgetKey('w'))).toMatch(new RegExp(
      `Its HealthRule was refused \\(rules/costly\\.yaml: HealthRule ${namespace}/costly spec\\.current: .* costs an estimated \\S+ steps, more than the budget of 100000000`));
  });

  it('stops a rule at its runtime budget on an object of long lists: HealthCheckFailed, saying why', async () => {
    await stack.repo.write('rules/pairs.yaml', healthRule('pairs', 'Gadget', 'spec.a.all(x, spec.a.all(y, x + y >= 0))'));
    await stack.repo.write('gadgets/g.yaml', stringify({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g', namespace }, spec: { a: Array.from({ length: 1_000 }, (_, index) => index) } }));
    const revision = await stack.repo.commitAndPush('a rule of two nested .all, and a Gadget of 1,000 items');
    await expect.poll(() => stack.readyCondition(`${group}/Gadget/${namespace}/g`), { timeout: 60_000, interval: 200 })
      .toMatch(/^False HealthCheckFailed: .*its health rule's current expression \(rules\/pairs\.yaml: HealthRule .*spec\.current\) visited more than 20000 list items and map keys/);
    await stack.repo.write('config.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace }, data: { a: '2' } }));
    const next = await stack.repo.commitAndPush('the next change');
    await expect.poll(() => stack.readyAt(`core/ConfigMap/${namespace}/after`, next), { timeout: 30_000, interval: 200 }).toBe(true);
    expect(revision).not.toBe(next);
  });
});
