// Storage version migration on a real kube-apiserver: WebApps stored by the previous release
// (v1alpha1 was the storage version) are rewritten as v1beta1 at a bounded rate, with progress,
// then status.storedVersions is trimmed. The proof that nothing is still stored as v1alpha1:
// the CRD is then cut down to v1beta1 alone with no conversion at all, so an object still stored
// in the old shape would come back with a string image; every object reads as v1beta1.
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyObject, ClusterConnection, crdVersions, waitForEstablished } from '@tidemark/cluster';
import { migrateStorage, type StorageMigrationProgress, installBuiltinCrds } from '@tidemark/conversion';
import type { KubernetesManifest } from '@tidemark/contracts';
import { createDefaultRegistry } from '@tidemark/kinds';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';

const crdName = 'webapps.tidemark.dev';
const namespace = `migrate-${randomUUID().slice(0, 8)}`;
const count = 30;
let plane: ControlPlane;
let connection: ClusterConnection;
let conversion: TestConversionWebhook;

beforeAll(async () => {
  plane = await startControlPlane({ name: 'migration' });
  connection = ClusterConnection.connect({ cluster: 'migration', kubeconfig: plane.kubeconfig });
  conversion = await startTestConversionWebhook(createDefaultRegistry());
});
afterAll(async () => {
  connection?.close();
  await plane?.stop();
  await conversion?.stop();
});

describe('storage version migration', () => {
  it('rewrites objects stored by the previous release as v1beta1, trims storedVersions, and v1alpha1 can then be dropped', async () => {
    // The previous release: its CRD, and WebApps stored as v1alpha1.
    const previous = parse(await readFile(new URL('fixtures/webapps.tidemark.dev.53f8326.yaml', import.meta.url), 'utf8')) as KubernetesManifest;
    await applyObject(connection.asManager('tidemark-crds'), previous);
    await waitForEstablished(connection, [crdName]);
    await plane.kubectl(['create', 'namespace', namespace]);
    const manifests = Array.from({ length: count }, (_, index) => ({
      apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: `app-${index}`, namespace },
      spec: { image: `registry.example.com:5000/shop/app-${index}:1.${index}`, features: { metrics: { enabled: index % 2 === 0 }, config: { enabled: true, data: { INDEX: String(index) } } } },
    }));
    await plane.kubectl(['apply', '-f', '-'], manifests.map((manifest) => JSON.stringify(manifest)).join('\n'));

    // This release installs its CRD: v1beta1 becomes the storage version; etcd still holds v1alpha1.
    await installBuiltinCrds(connection, createDefaultRegistry(), conversion.conversion());
    await waitForEstablished(connection, [crdName]);
    expect((await crdVersions(connection, crdName))?.storedVersions.sort()).toEqual(['v1alpha1', 'v1beta1']);

    const progress: StorageMigrationProgress[] = [];
    const lines: Record<string, unknown>[] = [];
    const result = await migrateStorage(connection, crdName, {
      objectsPerSecond: 100, pageSize: 7, logEvery: 10,
      onProgress: (step) => progress.push(step),
      log: { info: (fields) => lines.push(fields) },
    });
    expect(result).toEqual({ ran: true, migrated: count, storedVersions: ['v1beta1'] });
    expect(progress.map((step) => step.migrated)).toEqual([...Array.from({ length: count }, (_, index) => index + 1), count]);
    expect(progress.at(-1)).toMatchObject({ done: true, total: count, cluster: 'migration', crd: crdName });
    expect(lines.filter((line) => line.migrated !== undefined).map((line) => line.migrated)).toEqual([10, 20, 30, 30]);
    expect((await crdVersions(connection, crdName))?.storedVersions).toEqual(['v1beta1']);
    // Level-triggered: nothing left to do.
    expect(await migrateStorage(connection, crdName)).toEqual({ ran: false, migrated: 0, storedVersions: ['v1beta1'] });

    // Drop v1alpha1 and the webhook: objects come straight from etcd, untouched.
    await conversion.stop();
    const betaOnly = structuredClone(previous) as KubernetesManifest & { spec: { versions: KubernetesManifest[]; conversion?: unknown } };
    const current = (createDefaultRegistry().pluginFor('tidemark.dev/v1beta1', 'WebApp')!.crd.spec as { versions: { name: string }[] }).versions.find((version) => version.name === 'v1beta1');
    betaOnly.spec.versions = [current as never];
    betaOnly.spec.conversion = { strategy: 'None' };
    await plane.kubectl(['replace', '-f', '-'], JSON.stringify({ ...betaOnly, metadata: { name: crdName, resourceVersion: await crdResourceVersion() } }));
    await waitForEstablished(connection, [crdName]);
    const listed = JSON.parse(await plane.kubectl(['get', 'webapps.v1beta1.tidemark.dev', '-n', namespace, '-o', 'json'])) as { items: { metadata: { name: string; annotations?: Record<string, string> }; spec: { image: unknown; features: unknown } }[] };
    expect(listed.items).toHaveLength(count);
    for (const item of listed.items) {
      const index = Number(item.metadata.name.slice('app-'.length));
      expect(item.spec.image).toEqual({ repository: `registry.example.com:5000/shop/app-${index}`, tag: `1.${index}` });
      expect(item.spec.features).toEqual(index % 2 === 0
        ? [{ name: 'config', config: { data: { INDEX: String(index) }, mountPath: '/etc/config' } }, { name: 'metrics', metrics: { port: 9090, path: '/metrics' } }]
        : [{ name: 'config', config: { data: { INDEX: String(index) }, mountPath: '/etc/config' } }]);
    }
  });
});

async function crdResourceVersion(): Promise<string> {
  return (await plane.kubectl(['get', 'crd', crdName, '-o', 'jsonpath={.metadata.resourceVersion}'])).trim();
}
