// Point 8, for Placement rules: a rule may name the ServiceAccount the objects it places are applied
// with. A rule whose ServiceAccount may write only team-a gets the API server's forbidden message
// (Stalled) for an object it places into team-b, while the same source's other objects carry on; a
// rule naming a ServiceAccount the source's allow.serviceAccounts does not list is refused before any
// request, and under the defaultServiceAccount lockdown what no rule names still fails closed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { applyObject, getObject } from '@tidemark/cluster';
import { ConditionType, findCondition, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import type { SourceTenancy } from '@tidemark/pipeline';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const teamA = `pl-a-${id}`;
const teamB = `pl-b-${id}`;
const deployer = `system:serviceaccount:${teamA}:deployer`;
const allow = {
  namespaces: [teamA, teamB], kinds: ['*'], denyKinds: [], clusterKinds: [], clusters: ['*'], createNamespaces: false,
  serviceAccounts: [`${teamA}/deployer`],
};
// The source acts as the reconciler (no ServiceAccount of its own) unless a test locks it down.
let tenancy: SourceTenancy = { allow };
let harness: PipelineHarness;

const configMap = (namespace: string, name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  a: b\n`;
const keyOf = (namespace: string, name: string) => `core/ConfigMap/${namespace}/${name}`;
const live = (namespace: string, name: string) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const asAdmin = (manifest: KubernetesManifest) => applyObject(harness.connection.asManager('rig-admin'), manifest);
const placement = `apiVersion: tidemark.dev/v1alpha1
kind: Placement
metadata:
  name: teams
spec:
  rules:
    - paths: ['team-a/']
      serviceAccount: { namespace: ${teamA}, name: deployer }
    - paths: ['team-b/']
      serviceAccount: { namespace: ${teamB}, name: deployer }
`;

async function condition(key: string, type: string) {
  const status = await harness.statusStore.get(harness.cluster, key);
  return findCondition(status?.conditions ?? [], type);
}

/** pushAndReconcile pushes, polls and reconciles the named objects at the new revision (Placement objects are never applied). */
async function pushAndReconcile(message: string, keys: string[]) {
  await harness.repo.commitAndPush(message);
  const { revision } = await harness.source.poll();
  const results = new Map<string, Awaited<ReturnType<PipelineHarness['reconcileAt']>>>();
  for (const key of keys) results.set(key, await harness.reconcileAt(revision, key, 'git-change'));
  return results;
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { placement: true, tenancyFor: () => tenancy });
  for (const namespace of [teamA, teamB]) await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
  await asAdmin({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: teamA } });
  await asAdmin({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'deployer', namespace: teamA },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
  } as KubernetesManifest);
  await asAdmin({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'deployer', namespace: teamA },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
    subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: teamA }],
  } as KubernetesManifest);
  await harness.repo.write('placement.yaml', placement);
});
afterAll(async () => {
  for (const namespace of [teamA, teamB]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await harness?.stop();
});

describe('a Placement rule with a ServiceAccount', () => {
  it('applies what it places as that ServiceAccount: team-a is written, team-b refused with the forbidden message; the source\'s other objects carry on', async () => {
    await harness.repo.write('team-a/ok.yaml', configMap(teamA, 'ok'));
    await harness.repo.write('team-a/intrude.yaml', configMap(teamB, 'intrude'));
    await harness.repo.write('shared/plain.yaml', configMap(teamB, 'plain'));
    const results = await pushAndReconcile('team-a rule places two objects; one outside the rules', [keyOf(teamA, 'ok'), keyOf(teamB, 'intrude'), keyOf(teamB, 'plain')]);

    expect(results.get(keyOf(teamA, 'ok'))).not.toBeInstanceOf(Error);
    expect(await live(teamA, 'ok')).toBeDefined();

    const refused = results.get(keyOf(teamB, 'intrude'));
    expect(refused).toBeInstanceOf(TerminalError);
    const stalled = await condition(keyOf(teamB, 'intrude'), ConditionType.Stalled);
    expect(stalled?.status).toBe('True');
    expect(stalled?.reason).toBe('Forbidden');
    expect(stalled?.message).toContain(`User "${deployer}" cannot`);
    expect(stalled?.message).toContain(`acts as ${deployer} (named by Placement teams spec.rules[0])`);
    expect(await live(teamB, 'intrude')).toBeUndefined();

    // Not placed by an identity rule: the source's own identity (here the reconciler's) applies it.
    expect(results.get(keyOf(teamB, 'plain'))).not.toBeInstanceOf(Error);
    expect(await live(teamB, 'plain')).toBeDefined();
  });

  it('refuses a rule naming a ServiceAccount the source does not list, before any request', async () => {
    await harness.repo.write('team-b/other.yaml', configMap(teamB, 'other'));
    const before = harness.requests();
    const results = await pushAndReconcile('team-b rule names an unlisted ServiceAccount', [keyOf(teamB, 'other')]);
    expect(results.get(keyOf(teamB, 'other'))).toBeInstanceOf(TerminalError);
    const stalled = await condition(keyOf(teamB, 'other'), ConditionType.Stalled);
    expect(stalled?.reason).toBe('NotAllowed');
    expect(stalled?.message).toContain(`as ServiceAccount ${teamB}/deployer, which Placement teams spec.rules[1] names: ${teamB}/deployer is not in allow.serviceAccounts (${teamA}/deployer)`);
    expect(harness.requests()).toBe(before);
    expect(await live(teamB, 'other')).toBeUndefined();
  });

  it('keeps the lockdown closed: what no rule names acts as the default ServiceAccount and is refused; the rule still acts as its own', async () => {
    tenancy = { allow, serviceAccount: { namespace: teamA, name: 'nobody' } };
    await harness.repo.write('shared/locked.yaml', configMap(teamA, 'locked'));
    await harness.repo.write('team-a/still.yaml', configMap(teamA, 'still'));
    const results = await pushAndReconcile('under lockdown', [keyOf(teamA, 'locked'), keyOf(teamA, 'still')]);
    expect(results.get(keyOf(teamA, 'locked'))).toBeInstanceOf(TerminalError);
    expect((await condition(keyOf(teamA, 'locked'), ConditionType.Stalled))?.message).toContain(`User "system:serviceaccount:${teamA}:nobody" cannot`);
    expect(await live(teamA, 'locked')).toBeUndefined();
    expect(results.get(keyOf(teamA, 'still'))).not.toBeInstanceOf(Error);
    expect(await live(teamA, 'still')).toBeDefined();
  });
});
