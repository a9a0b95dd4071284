// Point 8, for previews: a preview dry-runs each object as the identity its reconcile would use,
// the ServiceAccount of the Placement rule that places it (at the previewed revision), then the
// source's, then Tidemark's. So a preview cannot show as allowed what the apply would be refused,
// nor the other way round, and a rule naming a ServiceAccount the source may not use is listed as
// refused (NotAllowed) without a request to the API server.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { applyObject, getObject } from '@tidemark/cluster';
import { TerminalError, type KubernetesManifest, type PreviewReport } from '@tidemark/contracts';
import type { SourceTenancy } from '@tidemark/pipeline';
import { previewRevision } from '@tidemark/preview';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const teamA = `pv-a-${id}`;
const teamB = `pv-b-${id}`;
const deployer = `system:serviceaccount:${teamA}:deployer`;
const allow = {
  namespaces: [teamA, teamB], kinds: ['*'], denyKinds: [], clusterKinds: [], clusters: ['*'], createNamespaces: false,
  serviceAccounts: [`${teamA}/deployer`],
};
// The source acts as the reconciler (no ServiceAccount of its own) unless a test locks it down.
let tenancy: SourceTenancy = { allow };
let harness: PipelineHarness;
let applied = '';

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

/** pushAndPreview pushes the working copy, polls it, and previews the new revision against the last one previewed. */
async function pushAndPreview(message: string): Promise<{ revision: string; report: PreviewReport; requests: number }> {
  await harness.repo.commitAndPush(message);
  const { revision } = await harness.source.poll();
  const before = harness.requests();
  const report = await previewRevision(
    { source: 'test', ref: 'main', baseRevision: applied, revision, requestedAt: new Date().toISOString() },
    {
      base: harness.source, head: harness.source, clusters: [{ name: harness.cluster, labels: {} }],
      render: { connectionFor: () => harness.connection, tenancyFor: () => tenancy, kinds: harness.kinds, statusStore: harness.statusStore },
    },
  );
  const requests = harness.requests() - before;
  applied = revision;
  return { revision, report, requests };
}

const changeOf = (report: PreviewReport, namespace: string, name: string) => report.changes.find((change) => change.namespace === namespace && change.name === name);

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
  await harness.repo.commitAndPush('the Placement rules');
  applied = (await harness.source.poll()).revision;
});
afterAll(async () => {
  for (const namespace of [teamA, teamB]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await harness?.stop();
});

describe('a preview with Placement rules that name ServiceAccounts', () => {
  it('dry-runs as the rule\'s ServiceAccount: team-a is created, team-b is refused as the apply then is; the rest as the source', async () => {
    await harness.repo.write('team-a/ok.yaml', configMap(teamA, 'ok'));
    await harness.repo.write('team-a/intrude.yaml', configMap(teamB, 'intrude'));
    await harness.repo.write('shared/plain.yaml', configMap(teamB, 'plain'));
    const { revision, report } = await pushAndPreview('team-a rule places two objects; one outside the rules');

    expect(changeOf(report, teamA, 'ok')).toMatchObject({ action: 'created', path: 'team-a/ok.yaml' });
    const intrude = changeOf(report, teamB, 'intrude');
    expect(intrude?.action).toBe('invalid');
    expect(intrude?.message).toContain(`User "${deployer}" cannot`);
    expect(intrude?.message).toContain(`acts as ${deployer} (named by Placement teams spec.rules[0])`);
    expect(changeOf(report, teamB, 'plain')).toMatchObject({ action: 'created' });
    expect(report.unreachable).toBeUndefined();
    expect(await live(teamA, 'ok')).toBeUndefined();

    // The real reconcile agrees, object by object.
    expect(await harness.reconcileAt(revision, keyOf(teamA, 'ok'), 'git-change')).not.toBeInstanceOf(Error);
    expect(await harness.reconcileAt(revision, keyOf(teamB, 'intrude'), 'git-change')).toBeInstanceOf(TerminalError);
    expect(await harness.reconcileAt(revision, keyOf(teamB, 'plain'), 'git-change')).not.toBeInstanceOf(Error);
    expect(await live(teamB, 'intrude')).toBeUndefined();
  });

  it('lists a rule naming a ServiceAccount the source does not allow as NotAllowed, without a request', async () => {
    await harness.repo.write('team-b/other.yaml', configMap(teamB, 'other'));
    const { report, requests } = await pushAndPreview('team-b rule names an unlisted ServiceAccount');
    expect(report.changes).toHaveLength(1);
    const other = changeOf(report, teamB, 'other');
    expect(other?.action).toBe('invalid');
    expect(other?.message).toContain(`as ServiceAccount ${teamB}/deployer, which Placement teams spec.rules[1] names: ${teamB}/deployer is not in allow.serviceAccounts (${teamA}/deployer)`);
    expect(requests).toBe(0);
  });

  it('under the defaultServiceAccount lockdown, shows refused what no rule names and allowed what the rule\'s ServiceAccount may write', async () => {
    tenancy = { allow, serviceAccount: { namespace: teamA, name: 'nobody' } };
    await harness.repo.write('shared/locked.yaml', configMap(teamA, 'locked'));
    await harness.repo.write('team-a/still.yaml', configMap(teamA, 'still'));
    const { report } = await pushAndPreview('under lockdown');
    const locked = changeOf(report, teamA, 'locked');
    expect(locked?.action).toBe('invalid');
    expect(locked?.message).toContain(`User "system:serviceaccount:${teamA}:nobody" cannot`);
    expect(changeOf(report, teamA, 'still')).toMatchObject({ action: 'created', path: 'team-a/still.yaml' });
    expect(report.unreachable).toBeUndefined();
  });
});
