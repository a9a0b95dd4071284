// Issue 34, item 4: the Namespace guard fails closed. A Namespace holding kinds the source's identity
// may not list (its Secrets, say) is not "empty": deleting it would delete what Tidemark cannot see.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { applyObject, getObject } from '@tidemark/cluster';
import { findCondition, type KubernetesManifest } from '@tidemark/contracts';
import type { SourceTenancy } from '@tidemark/pipeline';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const tenant = `ns-tenant-${id}`;
const doomed = `ns-doomed-${id}`;
const pruner = { namespace: tenant, name: 'pruner' };
let harness: PipelineHarness;
// The source acts as the reconciler to create the Namespace, then as its ServiceAccount.
let tenancy: SourceTenancy | undefined;

const admin = (manifest: KubernetesManifest) => applyObject(harness.connection.asManager('rig-admin'), manifest);

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { tenancyFor: () => tenancy });
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', tenant]);
  await admin({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: pruner.name, namespace: tenant } });
  // May read, apply and delete the Namespace, and read what `view` shows in it: not its Secrets.
  await admin({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `pruner-${id}` },
    rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [doomed], verbs: ['get', 'patch', 'delete'] }],
  } as KubernetesManifest);
  await admin({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `pruner-${id}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `pruner-${id}` },
    subjects: [{ kind: 'ServiceAccount', ...pruner }],
  } as KubernetesManifest);
  await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${doomed}\n`);
  await harness.pushAndReconcile('a namespace');
  await admin({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'pruner-view', namespace: doomed },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', ...pruner }],
  } as KubernetesManifest);
  // Someone else's Secret, which the source's identity cannot list.
  await admin({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'database', namespace: doomed }, stringData: { password: 'p' } });
  tenancy = { serviceAccount: pruner };
});
afterAll(async () => {
  for (const namespace of [tenant, doomed]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'clusterrolebinding,clusterrole', `pruner-${id}`, '--ignore-not-found']).catch(() => undefined);
  await harness?.stop();
});

describe('the Namespace guard', () => {
  it('keeps a Namespace whose Secrets the identity may not list (403 means keep), and says why', async () => {
    await harness.repo.delete('ns.yaml');
    await harness.pushAndReconcile('remove the namespace');
    const live = await getObject(harness.connection, { apiVersion: 'v1', kind: 'Namespace', name: doomed });
    expect(live?.metadata.deletionTimestamp).toBeUndefined();
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'Secret', namespace: doomed, name: 'database' })).toBeDefined();
    const record = await harness.statusStore.get(harness.cluster, `core/Namespace/_/${doomed}`);
    expect(findCondition(record?.conditions, 'Ready')?.message).toMatch(new RegExp(`Namespace ${doomed} may hold objects Tidemark cannot see: its identity may not list .*\\bsecrets\\b`));
  });
});
