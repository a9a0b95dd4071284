// Point 9: a source's allow-list is checked before any request. A Git author's ClusterRoleBinding
// to cluster-admin, a Deployment in another namespace using that namespace's ServiceAccount, an
// object sent to a cluster outside the list, and a WebApp rendering a kind not allowed are all
// refused (Stalled, reason NotAllowed, the rule named); existing objects are not pruned because of it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { ConditionType, findCondition, TerminalError } from '@tidemark/contracts';
import { reconcile, type AllowList, type SourceTenancy } from '@tidemark/pipeline';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { installBuiltinCrds } from '@tidemark/conversion';

const id = randomUUID().slice(0, 8);
const teamA = `team-a-${id}`;
const teamB = `team-b-${id}`;
const binding = `git-author-${id}`;
const allow: AllowList = {
  namespaces: [`team-a-${id}`], kinds: ['ConfigMap', 'apps/Deployment', 'tidemark.dev/WebApp'], denyKinds: [], clusterKinds: [], clusters: ['shared'], createNamespaces: false, serviceAccounts: [],
};
let harness: PipelineHarness;
let tenancy: SourceTenancy | undefined;
const tenancies: Record<string, SourceTenancy> = { 'west-only': { allow: { ...allow, clusters: ['west'] } } };

const configMap = (namespace: string, name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  a: b\n`;
const deployment = (namespace: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: borrow\n  namespace: ${namespace}\nspec:\n  selector: { matchLabels: { app: borrow } }\n  template:\n    metadata: { labels: { app: borrow } }\n    spec:\n      serviceAccountName: team-b-admin\n      containers: [{ name: app, image: nginx:1.27 }]\n`;
const keyOf = (namespace: string, name: string) => `core/ConfigMap/${namespace}/${name}`;
const live = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => getObject(harness.connection, { apiVersion, kind, ...(namespace ? { namespace } : {}), name });

async function expectNotAllowed(key: string, result: unknown, rule: RegExp, source = 'test'): Promise<void> {
  expect(result, key).toBeInstanceOf(TerminalError);
  const status = await harness.statusStore.get(harness.cluster, key);
  expect(status?.source).toBe(source);
  const stalled = findCondition(status?.conditions ?? [], ConditionType.Stalled);
  expect(stalled?.status, key).toBe('True');
  expect(stalled?.reason, key).toBe('NotAllowed');
  expect(stalled?.message, key).toMatch(rule);
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { tenancyFor: (source) => (source === 'test' ? tenancy : tenancies[source]) });
  await installBuiltinCrds(harness.connection, harness.kinds);
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', teamA]);
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', teamB]);
  // Applied before the source had an allow-list.
  await harness.repo.write('old.yaml', configMap(teamB, 'old'));
  await harness.pushAndReconcile('before the allow-list');
  expect(await live('v1', 'ConfigMap', teamB, 'old')).toBeDefined();
  tenancy = { allow };
});
afterAll(async () => {
  for (const namespace of [teamA, teamB]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'clusterrolebinding', binding, '--ignore-not-found']).catch(() => undefined);
  await harness?.stop();
});

describe('a source held to its allow-list', () => {
  it('refuses a ClusterRoleBinding to cluster-admin and a Deployment in another namespace, with no request for them', async () => {
    await harness.repo.write('ok.yaml', configMap(teamA, 'ok'));
    await harness.repo.write('admin.yaml', `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${binding}\nroleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }\nsubjects: [{ kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io }]\n`);
    await harness.repo.write('borrow.yaml', deployment(teamB));
    await harness.repo.commitAndPush('a git author overreaches');
    const { revision } = await harness.source.poll();
    // Warm discovery for both kinds, so the count below is of requests about the objects only.
    await harness.connection.discovery.resourceFor('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding');
    await harness.connection.discovery.resourceFor('apps/v1', 'Deployment');
    const before = harness.requests();
    const refusedBinding = await harness.reconcileAt(revision, `rbac.authorization.k8s.io/ClusterRoleBinding/_/${binding}`, 'git-change');
    const refusedDeployment = await harness.reconcileAt(revision, `apps/Deployment/${teamB}/borrow`, 'git-change');
    // Requests sent to the API server for the two refused objects: 0.
    expect(harness.requests() - before).toBe(0);
    await expectNotAllowed(`rbac.authorization.k8s.io/ClusterRoleBinding/_/${binding}`, refusedBinding, /rbac.authorization.k8s.io\/ClusterRoleBinding is cluster-scoped and not in allow.clusterKinds \(none\)/);
    await expectNotAllowed(`apps/Deployment/${teamB}/borrow`, refusedDeployment, new RegExp(`namespace ${teamB} is not in allow.namespaces \\(${teamA}\\)`));
    expect(await live('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, binding)).toBeUndefined();
    expect(await live('apps/v1', 'Deployment', teamB, 'borrow')).toBeUndefined();
    // What the list allows still goes through.
    expect(await harness.reconcileAt(revision, keyOf(teamA, 'ok'), 'git-change')).not.toBeInstanceOf(Error);
    expect(await live('v1', 'ConfigMap', teamA, 'ok')).toBeDefined();
  });

  it('refuses an object sent to a cluster outside the list, whatever placed it there', async () => {
    const result = await reconcile({ source: 'west-only', revision: harness.source.revision ?? '', cluster: harness.cluster, objectKey: keyOf(teamA, 'ok'), reason: 'git-change' }, harness.deps).catch((error: unknown) => error);
    await expectNotAllowed(keyOf(teamA, 'ok'), result, /cluster shared is not in allow.clusters \(west\)/, 'west-only');
  });

  it('refuses a WebApp that renders a kind not allowed, before anything of it is applied', async () => {
    await harness.repo.write('shop.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${teamA}\nspec:\n  image: nginx:1.27\n`);
    const { results } = await harness.pushAndReconcile('add shop');
    await expectNotAllowed(`tidemark.dev/WebApp/${teamA}/shop`, results.get(`tidemark.dev/WebApp/${teamA}/shop`), /kind ServiceAccount is not in allow.kinds \(ConfigMap, apps\/Deployment, tidemark.dev\/WebApp\)/);
    expect(await live('tidemark.dev/v1alpha1', 'WebApp', teamA, 'shop')).toBeUndefined();
    expect(await live('apps/v1', 'Deployment', teamA, 'shop')).toBeUndefined();
  });

  it('does not prune an existing object because it is refused now: objects deleted 0', async () => {
    await harness.repo.delete('old.yaml');
    const { results } = await harness.pushAndReconcile('remove team-b/old');
    await expectNotAllowed(keyOf(teamB, 'old'), results.get(keyOf(teamB, 'old')), new RegExp(`namespace ${teamB} is not in allow.namespaces`));
    expect(await live('v1', 'ConfigMap', teamB, 'old')).toBeDefined();
  });
});
