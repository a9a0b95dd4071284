// HealthRule objects in Git, on the rig with two sources (two tenants): a source's rule judges its
// own objects only, a broken rule is refused on its own (the revision is applied, the kind falls
// back to the generic rule and says so), and the API server checks a HealthRule's shape by its CRD.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, writeStatusByHand, type OrderingStack } from './ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `rules-${tag}`;
const group = `store-${tag}.example`;
let stack: OrderingStack;
let createdCrd = false;

const databaseKey = (name: string) => `${group}/Database/${namespace}/${name}`;
const database = (name: string, labels: Record<string, string> = {}) =>
  stringify({ apiVersion: `${group}/v1`, kind: 'Database', metadata: { name, namespace, labels }, spec: { instances: 1 } });
const healthRule = (name: string, spec: Record<string, string>) =>
  stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'HealthRule', metadata: { name, namespace }, spec: { apiVersion: `${group}/v1`, kind: 'Database', ...spec } });
const phaseRule = { failed: "has(status.phase) && status.phase == 'Failed'", current: "has(status.phase) && status.phase == 'Running'" };

const readyCondition = (key: string) => stack.readyCondition(key);

/** writeStatus plays the database operator. */
const writeStatus = (name: string, status: Record<string, unknown>) => writeStatusByHand(inject('kubeconfigPath'), `databases.${group}`, namespace, name, status);

beforeAll(async () => {
  stack = await startOrderingStack({
    kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'), dependencyRecheckMs: 600_000,
    sources: { 'tenant-a': {}, 'tenant-b': {} },
  });
  const tenantA = stack.repos['tenant-a']!;
  await tenantA.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await tenantA.write('crd.yaml', stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `databases.${group}` },
    spec: { group, scope: 'Namespaced', names: { kind: 'Database', plural: 'databases', singular: 'database', listKind: 'DatabaseList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }));
  const revision = await tenantA.commitAndPush('a namespace and the Database CRD');
  // expect.poll belongs in tests: wait here by hand for the Namespace every test's objects need.
  for (let waited = 0; !(await stack.readyAt(`core/Namespace/_/${namespace}`, revision)); waited += 200) {
    if (waited > 60_000) throw new Error(`Namespace ${namespace} was not Ready within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});
afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'customresourcedefinition', `databases.${group}`, ...(createdCrd ? ['healthrules.tidemark.dev'] : []), '--ignore-not-found', '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('HealthRule objects in Git', () => {
  it("judge their own source's objects only: another tenant's Database of the same kind keeps the generic rule", async () => {
    const tenantA = stack.repos['tenant-a']!;
    const tenantB = stack.repos['tenant-b']!;
    await tenantA.write('rules/database.yaml', healthRule('database', phaseRule));
    await tenantA.write('dbs/a.yaml', database('a-db'));
    await tenantA.commitAndPush('a HealthRule for Database, and a Database');
    await tenantB.write('dbs/b.yaml', database('b-db'));
    const first = await tenantB.commitAndPush('a Database of the same kind, no rule');

    await expect.poll(() => readyCondition(databaseKey('a-db')), { timeout: 60_000, interval: 200 })
      .toMatch(new RegExp(`^False HealthCheckPending: Database ${namespace}/a-db is not ready yet: its health rule's current expression does not hold`));
    // No conditions and no rule: the generic rule says Ready once applied.
    await expect.poll(() => stack.readyAt(databaseKey('b-db'), first), { timeout: 60_000, interval: 200 }).toBe(true);

    // Both operators report the same failed status; only tenant-a's rule says Failed.
    await writeStatus('a-db', { phase: 'Failed' });
    await writeStatus('b-db', { phase: 'Failed' });
    await expect.poll(() => readyCondition(databaseKey('a-db')), { timeout: 30_000, interval: 200 })
      .toMatch(new RegExp(`^False HealthCheckFailed: Database ${namespace}/a-db is failed by its health rule \\(failed: `));
    await tenantB.write('dbs/b.yaml', database('b-db', { touched: 'yes' }));
    const second = await tenantB.commitAndPush('look at b-db again, with its Failed status');
    await expect.poll(() => stack.readyAt(databaseKey('b-db'), second), { timeout: 60_000, interval: 200 }).toBe(true);
    expect(await readyCondition(databaseKey('b-db'))).not.toMatch(/health rule/);

    await writeStatus('a-db', { phase: 'Running' });
    await expect.poll(() => readyCondition(databaseKey('a-db')), { timeout: 30_000, interval: 200 }).toMatch(/^True /);
  });

  it('refuses a broken HealthRule on its own: the revision is applied, and its kind says it fell back to the generic rule', async () => {
    const tenantB = stack.repos['tenant-b']!;
    await tenantB.write('rules/broken.yaml', healthRule('broken', { current: "status.phase == 'Running' &&" }));
    await tenantB.write('config.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b-config', namespace }, data: { a: '1' } }));
    const revision = await tenantB.commitAndPush('a HealthRule that does not parse, and a ConfigMap');
    await expect.poll(() => stack.readyAt(`core/ConfigMap/${namespace}/b-config`, revision), { timeout: 60_000, interval: 200 }).toBe(true);
    // A changed HealthRule routes the source's objects again, so b-db is judged at this revision and says why.
    await expect.poll(() => stack.readyAt(databaseKey('b-db'), revision), { timeout: 60_000, interval: 200 }).toBe(true);
    expect(await readyCondition(databaseKey('b-db'))).toMatch(new RegExp(
      `Its HealthRule was refused \\(rules/broken\\.yaml: HealthRule ${namespace}/broken spec\\.current: "status\\.phase == 'Running' &&" does not parse: at 1:\\d+.*\\); it is judged by the generic rule \\(kstatus\\) instead\\.$`));
    expect(await readyCondition(databaseKey('a-db'))).not.toMatch(/refused/);
  });

  it('has a CRD whose admission refuses a blank expression and a failed that repeats current', async () => {
    const kubeconfigPath = inject('kubeconfigPath');
    const crd = await readFile(new URL('../../deploy/crds/healthrules.tidemark.dev.yaml', import.meta.url), 'utf8');
    // Installed for real only if missing (test/deploy may install it too), and then removed again.
    createdCrd = (await kubectl(kubeconfigPath, ['get', 'crd', 'healthrules.tidemark.dev', '--ignore-not-found', '-o', 'name'])).trim() === '';
    if (createdCrd) await kubectl(kubeconfigPath, ['create', '-f', '-'], crd).catch((error: Error) => { if (!/AlreadyExists/.test(error.message)) throw error; });
    await kubectl(kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/healthrules.tidemark.dev']);
    const dryRun = (spec: Record<string, string>) => kubectl(kubeconfigPath, ['apply', '--server-side', '--dry-run=server', '-f', '-'], healthRule(`admitted-${tag}`, spec));
    await expect(dryRun(phaseRule)).resolves.toContain('serverside-applied');
    await expect(dryRun({ current: '   ' })).rejects.toThrow('current must not be blank');
    await expect(dryRun({ current: 'true', failed: 'true' })).rejects.toThrow('failed and current must differ');
    await expect(dryRun({ current: 'true', apiVersion: 'Not A Version' })).rejects.toThrow('spec.apiVersion');
  });
});
