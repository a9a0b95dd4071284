// libs/cluster's CapabilitiesCache against the real API server: a refresh before any render asked
// reads no discovery (a start that installs CRDs used to walk every group four times for nothing);
// once asked, a refresh reads again and sees a CRD that became served.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { CapabilitiesCache, ClusterConnection, createObject, deleteObject, waitForEstablished } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';

const group = `capabilities-${randomUUID().slice(0, 8)}.example.com`;
const crd: KubernetesManifest = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
  spec: {
    group, scope: 'Namespaced',
    names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const paths: string[] = [];
let connection: ClusterConnection;

beforeAll(() => {
  connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig'), onResponse: (event) => paths.push(event.path) });
});

afterAll(async () => {
  await deleteObject(connection, { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', namespace: '', name: crd.metadata.name }).catch(() => undefined);
  connection.close();
});

describe('CapabilitiesCache', () => {
  it('reads nothing on a refresh until a render asks, then reads again on each refresh', async () => {
    const cache = new CapabilitiesCache(() => connection);
    paths.length = 0;
    expect(await cache.refresh('shared')).toBe(false);
    expect(paths).toEqual([]);

    const first = await cache.of('shared');
    expect(first.apiVersions).toContain('apps/v1/Deployment');
    expect(first.apiVersions).not.toContain(`${group}/v1/Gadget`);
    expect(paths).toContain('/apis');

    await createObject(connection, crd);
    await waitForEstablished(connection, [crd.metadata.name]);
    paths.length = 0;
    // Discovery may list a just-Established CRD a moment later: refresh until it does.
    let changed = await cache.refresh('shared');
    for (let attempt = 0; !changed && attempt < 50; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      changed = await cache.refresh('shared');
    }
    expect(changed).toBe(true);
    expect(paths).toContain('/apis');
    expect((await cache.of('shared')).apiVersions).toContain(`${group}/v1/Gadget`);
  });
});
