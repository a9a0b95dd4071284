// Point 8: a source applies, reads and prunes as its own ServiceAccount (impersonation). One that
// may write only team-a cannot create, read or delete anything in team-b or cluster-wide; its
// objects stall with the API server's forbidden message, and other sources carry on.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { applyObject, getObject } from '@tidemark/cluster';
import { ConditionType, findCondition, isReconcileFailure, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { reconcile, type SourceTenancy } from '@tidemark/pipeline';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const teamA = `team-a-${id}`;
const teamB = `team-b-${id}`;
const clusterRole = `escalate-${id}`;
const deployer = { namespace: teamA, name: 'deployer' };
const user = `system:serviceaccount:${teamA}:deployer`;
let harness: PipelineHarness;
// Switched per test: the source 'test' acts as its ServiceAccount, or (before) as the reconciler.
let tenancy: SourceTenancy | undefined;
const tenancies: Record<string, SourceTenancy | undefined> = { locked: { serviceAccount: { namespace: teamA, name: 'nobody' } } };

const configMap = (namespace: string, name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  a: b\n`;
const keyOf = (namespace: string, name: string) => `core/ConfigMap/${namespace}/${name}`;
const live = (namespace: string, name: string) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const object = (manifest: KubernetesManifest) => applyObject(harness.connection.asManager('rig-admin'), manifest);

async function stalled(key: string, source = 'test') {
  const status = await harness.statusStore.get(harness.cluster, key);
  expect(status?.source).toBe(source);
  return findCondition(status?.conditions ?? [], ConditionType.Stalled);
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { tenancyFor: (source) => (source === 'test' ? tenancy : tenancies[source]) });
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', teamA]);
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', teamB]);
  await object({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: teamA } });
  await object({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'deployer', namespace: teamA },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
  } as KubernetesManifest);
  await object({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'deployer', namespace: teamA },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
    subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: teamA }],
  } as KubernetesManifest);
  // Applied by the reconciler's own identity before the source had one: team-b's object is Tidemark's.
  await harness.repo.write('legacy.yaml', configMap(teamB, 'legacy'));
  const { results } = await harness.pushAndReconcile('before tenancy');
  expect(results.get(keyOf(teamB, 'legacy'))).toEqual(expect.objectContaining({ kind: expect.any(String) }));
  expect(await live(teamB, 'legacy')).toBeDefined();
  tenancy = { serviceAccount: deployer };
});
afterAll(async () => {
  for (const namespace of [teamA, teamB]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'clusterrole', clusterRole, '--ignore-not-found']).catch(() => undefined);
  await harness?.stop();
});

describe('a source acting as its ServiceAccount', () => {
  it('applies in team-a, and cannot create in team-b or cluster-wide: Stalled with the forbidden message', async () => {
    await harness.repo.write('a.yaml', configMap(teamA, 'allowed'));
    await harness.repo.write('b.yaml', configMap(teamB, 'intrude'));
    await harness.repo.write('escalate.yaml', `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${clusterRole}\nrules:\n  - apiGroups: ['*']\n    resources: ['*']\n    verbs: ['*']\n`);
    const { results } = await harness.pushAndReconcile('team-a writes three objects');
    // The object it may write is applied, as the ServiceAccount (the API server records its manager under that user).
    expect(results.get(keyOf(teamA, 'allowed'))).not.toBeInstanceOf(Error);
    expect(await live(teamA, 'allowed')).toBeDefined();
    const refused = [keyOf(teamB, 'intrude'), `rbac.authorization.k8s.io/ClusterRole/_/${clusterRole}`];
    for (const key of refused) {
      const result = results.get(key);
      expect(result, key).toBeInstanceOf(TerminalError);
      const condition = await stalled(key);
      expect(condition?.status, key).toBe('True');
      expect(condition?.reason).toBe('Forbidden');
      expect(condition?.message).toContain(`User "${user}" cannot`);
      expect(condition?.message).toContain(`Source test acts as ${user}`);
    }
    expect(await live(teamB, 'intrude')).toBeUndefined();
    expect(await kubectl(inject('kubeconfigPath'), ['get', 'clusterrole', clusterRole, '--ignore-not-found', '-o', 'name'])).toBe('');
  });

  it('cannot read an object outside its rights: the GET itself is refused, nothing of it is reported', async () => {
    await object({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'peek', namespace: teamB }, data: { password: 'canary-c0ffee' } });
    await harness.repo.write('peek.yaml', configMap(teamB, 'peek'));
    const { results } = await harness.pushAndReconcile('team-a declares team-b/peek');
    const failure = results.get(keyOf(teamB, 'peek'));
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as Error).message).toMatch(/cannot get resource "configmaps"/);
    const status = await harness.statusStore.get(harness.cluster, keyOf(teamB, 'peek'));
    expect(JSON.stringify(status)).not.toContain('canary-c0ffee');
    expect((await live(teamB, 'peek'))?.data).toEqual({ password: 'canary-c0ffee' });
  });

  it('cannot prune what its ServiceAccount may not delete, though the reconciler applied it: objects deleted 0', async () => {
    await harness.repo.delete('legacy.yaml');
    const { results } = await harness.pushAndReconcile('team-a removes team-b/legacy');
    const failure = results.get(keyOf(teamB, 'legacy'));
    expect(isReconcileFailure(failure)).toBe(true);
    expect((failure as Error).message).toContain(user);
    expect(await live(teamB, 'legacy')).toBeDefined();
  });

  it('fails closed under lockdown: a ServiceAccount without rights applies nothing', async () => {
    await harness.repo.write('c.yaml', configMap(teamA, 'locked-out'));
    await harness.repo.commitAndPush('add c');
    const { revision } = await harness.source.poll();
    const locked = await reconcile({ source: 'locked', revision, cluster: harness.cluster, objectKey: keyOf(teamA, 'locked-out'), reason: 'git-change' }, harness.deps).catch((error: unknown) => error);
    expect(locked).toBeInstanceOf(TerminalError);
    expect((locked as Error).message).toContain(`User "system:serviceaccount:${teamA}:nobody" cannot`);
    expect(await live(teamA, 'locked-out')).toBeUndefined();
  });

  it('leaves other sources to carry on: one without a ServiceAccount still applies team-b', async () => {
    const revision = harness.source.revision ?? '';
    const other = await reconcile({ source: 'other', revision, cluster: harness.cluster, objectKey: keyOf(teamB, 'intrude'), reason: 'manual' }, harness.deps);
    expect(other.kind).toBeDefined();
    expect(await live(teamB, 'intrude')).toBeDefined();
  });
});
