// Issue 39, Cluster objects from Git: a tenant's source must not declare a tidemark.dev Cluster that
// hands the hub's power over (inCluster: the reconciler's own ServiceAccount; or a kubeconfig
// Secret outside the Cluster's namespace). The pipeline refuses it before anything is sent, however
// it is spelled, while an operator-owned source may. And the Cluster controller registers only the
// Clusters (and reads only the Secrets) of the one namespace the operator configured.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { applyChangeSet, applyObject, getObject } from '@tidemark/cluster';
import { ClusterController, ClusterRegistry, clusterCrd } from '@tidemark/cluster-objects';
import { ConditionType, findCondition, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { pino } from 'pino';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const tenant = `tenant-${id}`;
const hub = `hub-${id}`;
let harness: PipelineHarness;
let owner: 'operator' | 'tenant' = 'tenant';

const clusterYaml = (name: string, spec: string) => `apiVersion: tidemark.dev/v1alpha1\nkind: Cluster\nmetadata:\n  name: ${name}\n  namespace: ${tenant}\nspec:\n${spec}`;
const keyOf = (name: string) => `tidemark.dev/Cluster/${tenant}/${name}`;
const liveCluster = (namespace: string, name: string) => getObject(harness.connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', namespace, name });

async function expectRefused(name: string, result: unknown, field: RegExp): Promise<void> {
  expect(result, name).toBeInstanceOf(TerminalError);
  expect((result as TerminalError).code).toBe('NotAllowed');
  const stalled = findCondition((await harness.statusStore.get(harness.cluster, keyOf(name)))?.conditions ?? [], ConditionType.Stalled);
  expect(stalled?.reason).toBe('NotAllowed');
  // The file, the object and the field, in one sentence.
  expect(stalled?.message).toMatch(new RegExp(`^${name}\\.yaml: Cluster ${tenant}/${name}: ${field.source}`));
  expect(await liveCluster(tenant, name)).toBeUndefined();
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  harness.deps.ownerOf = () => owner;
  await applyChangeSet(harness.connection, [clusterCrd()]);
  await kubectl(inject('kubeconfigPath'), ['wait', '--for=condition=Established', '--timeout=60s', 'crd/clusters.tidemark.dev']);
  for (const namespace of [tenant, hub]) await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
});
afterAll(async () => {
  for (const namespace of [tenant, hub]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await harness?.stop();
});

describe('a Cluster object from a tenant\'s Git source', () => {
  it('is refused when it says inCluster, spelled as a boolean or a string, or names a Secret in another namespace; a plain one is applied', async () => {
    owner = 'tenant';
    await harness.repo.write('own.yaml', clusterYaml('own', '  inCluster: true\n'));
    await harness.repo.write('quoted.yaml', clusterYaml('quoted', '  inCluster: "true"\n'));
    await harness.repo.write('borrow.yaml', clusterYaml('borrow', `  kubeconfigSecretRef: { name: hub-kubeconfig, namespace: ${hub} }\n`));
    await harness.repo.write('plain.yaml', clusterYaml('plain', '  kubeconfigSecretRef: { name: edge-kubeconfig }\n  labels: { env: dev }\n'));
    const { results } = await harness.pushAndReconcile('a tenant declares Clusters');
    await expectRefused('own', results.get(keyOf('own')), /spec\.inCluster would reach the hub/);
    await expectRefused('quoted', results.get(keyOf('quoted')), /spec\.inCluster would reach the hub/);
    await expectRefused('borrow', results.get(keyOf('borrow')), new RegExp(`spec\\.kubeconfigSecretRef\\.namespace names "${hub}", outside the Cluster's namespace ${tenant}`));
    expect(results.get(keyOf('plain'))).not.toBeInstanceOf(Error);
    expect((await liveCluster(tenant, 'plain'))?.spec).toEqual({ kubeconfigSecretRef: { name: 'edge-kubeconfig' }, labels: { env: 'dev' } });
  });

  it('is refused when a later commit turns an applied Cluster into an inCluster one; the applied spec stays', async () => {
    owner = 'tenant';
    await harness.repo.write('plain.yaml', clusterYaml('plain', '  inCluster: true\n'));
    const { results } = await harness.pushAndReconcile('a tenant turns its Cluster into the hub');
    expect((results.get(keyOf('plain')) as TerminalError).message).toMatch(/spec\.inCluster would reach the hub/);
    expect((await liveCluster(tenant, 'plain'))?.spec).toEqual({ kubeconfigSecretRef: { name: 'edge-kubeconfig' }, labels: { env: 'dev' } });
  });

  it('is applied from an operator-owned source, inCluster included', async () => {
    owner = 'operator';
    await harness.repo.write('trusted.yaml', clusterYaml('trusted', '  inCluster: true\n'));
    const { results } = await harness.pushAndReconcile('the operator declares the hub');
    expect(results.get(keyOf('trusted'))).not.toBeInstanceOf(Error);
    expect((await liveCluster(tenant, 'trusted'))?.spec).toEqual({ inCluster: true });
  });
});

describe('the Cluster controller', () => {
  it('refuses to start without one namespace: a blank one would serve every namespace', () => {
    expect(() => new ClusterController({ connection: harness.connection, namespace: '', registry: new ClusterRegistry(), hooks: noHooks(), log: pino({ level: 'silent' }) })).toThrow(/serves one namespace, a DNS label; got ""/);
  });

  it('registers the Clusters of the configured namespace only, never one a tenant put in its own', async () => {
    const kubeconfig = Buffer.from(inject('kubeconfig')).toString('base64');
    for (const namespace of [hub, tenant]) {
      await applyObject(harness.connection, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'target', namespace }, data: { kubeconfig } } as KubernetesManifest);
      await applyObject(harness.connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', metadata: { name: `from-${namespace === hub ? 'hub' : 'tenant'}`, namespace }, spec: { kubeconfigSecretRef: { name: 'target' } } } as KubernetesManifest);
    }
    const registry = new ClusterRegistry();
    const started: string[] = [];
    const controller = new ClusterController({ connection: harness.connection, namespace: hub, registry, manages: false, hooks: noHooks(started), log: pino({ level: 'silent' }), probeIntervalMs: 60_000 });
    await controller.start();
    try {
      // start serves what the watches listed before it returns: both Clusters exist by now.
      expect(registry.list().map((cluster) => cluster.name)).toEqual(['from-hub']);
      expect(started).toEqual(['from-hub']);
      expect([...controller.observations().keys()]).toEqual(['from-hub']);
    } finally {
      await controller.stop();
    }
  });
});

function noHooks(started: string[] = []): ConstructorParameters<typeof ClusterController>[0]['hooks'] {
  return {
    start: async (name) => void started.push(name),
    stop: async () => undefined,
    connectionFor: () => harness.connection,
    route: async () => undefined,
    retire: async () => 0,
  };
}
