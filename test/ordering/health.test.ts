// Health on the rig: a custom resource whose health comes from a CEL rule in tidemark.yaml, its
// status written by hand as its operator would, and a health timeout. The waiting objects' own
// recheck is ten minutes, so what starts within a test was woken by its dependency's run.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, writeStatusByHand, type OrderingStack } from './ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `health-${tag}`;
const group = `db-${tag}.example`;
let stack: OrderingStack;

const databaseKey = (name: string) => `${group}/Database/${namespace}/${name}`;
const configMapKey = (name: string) => `core/ConfigMap/${namespace}/${name}`;
const database = (name: string, annotations: Record<string, string> = {}) =>
  stringify({ apiVersion: `${group}/v1`, kind: 'Database', metadata: { name, namespace, annotations }, spec: { instances: 2 } });
const dependent = (name: string, on: string) =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations: { 'tidemark.dev/depends-on': `${group}/v1/Database/${namespace}/${on}` } }, data: { on } });
const exists = async (name: string) => (await getObject(stack.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) !== undefined;

const readyCondition = (key: string) => stack.readyCondition(key);

/** writeStatus plays the database operator. */
const writeStatus = (name: string, status: Record<string, unknown>) => writeStatusByHand(inject('kubeconfigPath'), `databases.${group}`, namespace, name, status);

beforeAll(async () => {
  stack = await startOrderingStack({
    kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000,
    objectHealth: {
      rules: [{
        apiVersion: `${group}/v1`, kind: 'Database',
        failed: "has(status.phase) && status.phase == 'Failed'",
        current: "has(status.phase) && status.phase == 'Running' && status.readyInstances == spec.instances",
      }],
    },
  });
  await stack.repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await stack.repo.write('crd.yaml', stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `databases.${group}` },
    spec: { group, scope: 'Namespaced', names: { kind: 'Database', plural: 'databases', singular: 'database', listKind: 'DatabaseList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }));
});
afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'customresourcedefinition', `databases.${group}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('health', () => {
  it('judges a custom resource by its CEL rule: what depends on it waits until the rule says current', async () => {
    await stack.repo.write('cel/db.yaml', database('orders'));
    await stack.repo.write('cel/app.yaml', dependent('orders-app', 'orders'));
    const revision = await stack.repo.commitAndPush('a database and an app that needs it');
    await expect.poll(() => readyCondition(databaseKey('orders')), { timeout: 60_000, interval: 200 })
      .toMatch(new RegExp(`^False HealthCheckPending: Database ${namespace}/orders is not ready yet: its health rule's current expression does not hold`));
    await expect.poll(() => readyCondition(configMapKey('orders-app')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^False DependencyNotReady: waiting for Database ${namespace}/orders \\(tidemark.dev/depends-on\\) to be Ready: HealthCheckPending:`));

    // The record keeps what it waits on, for the dashboard's dependency graph.
    expect((await stack.status(configMapKey('orders-app')))?.dependencies).toEqual({
      edges: [
        { objectKey: `core/Namespace/_/${namespace}`, description: `Namespace ${namespace}`, reason: 'namespace' },
        { objectKey: databaseKey('orders'), description: `Database ${namespace}/orders`, reason: 'depends-on' },
      ],
      total: 2,
    });

    // One instance of two is not current by the rule.
    await writeStatus('orders', { phase: 'Running', readyInstances: 1 });
    await expect.poll(() => stack.status(databaseKey('orders')).then((record) => record?.resources?.[0]?.message), { timeout: 30_000, interval: 200 })
      .toContain('current expression does not hold');
    expect(await exists('orders-app')).toBe(false);

    await writeStatus('orders', { phase: 'Running', readyInstances: 2 });
    await expect.poll(() => stack.readyAt(databaseKey('orders'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
    expect(await readyCondition(databaseKey('orders'))).toMatch(/^True /);
    await expect.poll(() => stack.readyAt(configMapKey('orders-app'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
  });

  it('fails a CR the rule says Failed at once, with HealthCheckFailed', async () => {
    await stack.repo.write('failed/db.yaml', database('broken'));
    await stack.repo.commitAndPush('a database that will fail');
    await expect.poll(() => readyCondition(databaseKey('broken')), { timeout: 60_000, interval: 200 }).toMatch(/^False HealthCheckPending/);
    await writeStatus('broken', { phase: 'Failed' });
    await expect.poll(() => readyCondition(databaseKey('broken')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^False HealthCheckFailed: Database ${namespace}/broken is failed by its health rule \\(failed: `));
  });

  it('marks a CR not healthy within its timeout HealthCheckFailed, and what depends on it DependencyFailed, until it is healthy', async () => {
    await stack.repo.write('timeout/db.yaml', database('stuck', { 'tidemark.dev/health-timeout': '2s' }));
    await stack.repo.write('timeout/app.yaml', dependent('stuck-app', 'stuck'));
    const revision = await stack.repo.commitAndPush('a database that never becomes healthy by itself, with a 2s timeout');
    await expect.poll(() => readyCondition(databaseKey('stuck')), { timeout: 60_000, interval: 200 })
      .toMatch(new RegExp(`^False HealthCheckFailed: Database ${namespace}/stuck is not ready yet: .* Not Ready after \\d+s, past its health timeout of 2s: fix what this says, or give it longer with the tidemark.dev/health-timeout annotation\\.$`));
    const stalled = await stack.status(databaseKey('stuck'));
    expect(findCondition(stalled?.conditions, 'Reconciling')?.status).toBe('False');
    await expect.poll(() => readyCondition(configMapKey('stuck-app')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^False DependencyFailed: waiting for Database ${namespace}/stuck \\(tidemark.dev/depends-on\\) to be Ready: HealthCheckFailed: .* Database ${namespace}/stuck failed \\(this object has waited \\d+s\\): fix Database ${namespace}/stuck or drop it from tidemark.dev/depends-on; this object is applied the moment it is Ready\\.$`));
    expect((await stack.status(configMapKey('stuck-app')))?.failure?.category).toBe('transient');
    expect(await exists('stuck-app')).toBe(false);

    await writeStatus('stuck', { phase: 'Running', readyInstances: 2 });
    await expect.poll(() => stack.readyAt(databaseKey('stuck'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
    await expect.poll(() => stack.readyAt(configMapKey('stuck-app'), revision), { timeout: 30_000, interval: 200 }).toBe(true);
  });

  it('refuses an unreadable health timeout, naming the file, the object and the annotation', async () => {
    await stack.repo.write('timeout/garbled.yaml', database('garbled', { 'tidemark.dev/health-timeout': 'soon' }));
    await stack.repo.commitAndPush('a timeout that is not a duration');
    await expect.poll(() => readyCondition(databaseKey('garbled')), { timeout: 60_000, interval: 200 })
      .toBe(`False InvalidHealthTimeout: timeout/garbled.yaml: Database ${namespace}/garbled: tidemark.dev/health-timeout: "soon" is not a duration: write a number and a unit, such as "90s", "5m" or "1h30m". Fix it in Git.`);
  });
});
