// libs/cluster against the real API server: change sets, ordering, ownership, immutable fields.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { applyChangeSet, applyObject, applyStatus, ClusterConnection, getObject, recreateAnnotation } from '@tidemark/cluster';

const suffix = randomUUID().slice(0, 8);
const namespace = `cluster-${suffix}`;
let connection: ClusterConnection;

function deployment(name: string, labels: Record<string, string>, replicas?: number): KubernetesManifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
    },
  };
}

beforeAll(async () => {
  connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig') });
  await applyObject(connection, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});

describe('applyChangeSet', () => {
  it('creates, then leaves an unchanged object unwritten, then configures a change', async () => {
    const configMap: KubernetesManifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { level: 'info' } };
    const [created] = await applyChangeSet(connection, [configMap]);
    expect(created?.action).toBe('created');
    const before = await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });

    const [unchanged] = await applyChangeSet(connection, [configMap]);
    expect(unchanged?.action).toBe('unchanged');
    const after = await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);

    const [configured] = await applyChangeSet(connection, [{ ...configMap, data: { level: 'debug' } }]);
    expect(configured?.action).toBe('configured');
    expect((configured?.object as { data?: Record<string, string> }).data).toEqual({ level: 'debug' });
  });

  it('applies a CRD and waits until it is Established before applying its CR, and a Namespace before its objects', async () => {
    const group = `order${suffix}.tidemark.dev`;
    const otherNamespace = `${namespace}-late`;
    const objects: KubernetesManifest[] = [
      { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g1', namespace: otherNamespace }, spec: { size: 1 } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-late', namespace: otherNamespace }, data: { a: '1' } },
      {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
        spec: {
          group, scope: 'Namespaced', names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
        },
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: otherNamespace } },
    ];
    const entries = await applyChangeSet(connection, objects);
    expect(entries.map((entry) => [entry.subject, entry.action])).toEqual([
      [`CustomResourceDefinition gadgets.${group}`, 'created'],
      [`Namespace ${otherNamespace}`, 'created'],
      [`Gadget ${otherNamespace}/g1`, 'created'],
      [`ConfigMap ${otherNamespace}/in-late`, 'created'],
    ]);
  });

  it('leaves replicas to the HPA when Tidemark omits them', async () => {
    const labels = { app: `hpa-${suffix}` };
    await applyChangeSet(connection, [deployment('scaled', labels)]);
    // A second field manager, standing in for the HPA controller, owns replicas.
    const hpa = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig'), fieldManager: 'horizontal-pod-autoscaler' });
    await applyObject(hpa, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'scaled', namespace }, spec: { replicas: 5 } });
    const [entry] = await applyChangeSet(connection, [deployment('scaled', labels)]);
    expect(entry?.action).toBe('unchanged');
    const live = await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'scaled' });
    expect((live?.spec as { replicas: number }).replicas).toBe(5);
    hpa.close();
  });

  it('refuses an immutable-field change with a clear error, and recreates only on opt-in', async () => {
    await applyChangeSet(connection, [deployment('fixed', { app: 'one' })]);
    const changed = deployment('fixed', { app: 'two' });
    const failure = await applyChangeSet(connection, [changed]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as TerminalError).code).toBe('ImmutableFieldChanged');
    expect((failure as Error).message).toMatch(new RegExp(`Deployment ${namespace}/fixed cannot be updated in place.*${recreateAnnotation}`));
    const stillThere = await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'fixed' });
    expect((stillThere?.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual({ app: 'one' });

    changed.metadata.annotations = { [recreateAnnotation]: 'true' };
    const [entry] = await applyChangeSet(connection, [changed]);
    expect(entry?.action).toBe('configured');
    const recreated = await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'fixed' });
    expect(recreated?.metadata.uid).not.toBe(stillThere?.metadata.uid);
    expect((recreated?.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual({ app: 'two' });
  });
});

describe('applyStatus', () => {
  it('returns false and writes nothing when the CRD has no status subresource', async () => {
    const group = `nostatus${suffix}.tidemark.dev`;
    await applyChangeSet(connection, [{
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `plains.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { kind: 'Plain', plural: 'plains', singular: 'plain' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    }]);
    const plain: KubernetesManifest = { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: 'p', namespace } };
    await applyChangeSet(connection, [plain]);
    expect(await applyStatus(connection, plain, { phase: 'x' })).toBe(false);
  });
});
