// The original ConfigWatcher CRD, pushed through Git unchanged (no status subresource), on a
// control plane of its own so the shared one keeps Tidemark's CRD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { applyObject, listObjects } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { inject } from 'vitest';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { installBuiltinCrds } from '@tidemark/conversion';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';

const seedDir = fileURLToPath(new URL('../../examples/seed-configwatcher/', import.meta.url));
const key = 'k8spatterns.com/ConfigWatcher/operator-test/webapp-config-watcher';
let plane: ControlPlane;
let harness: PipelineHarness;
let conversion: TestConversionWebhook;

beforeAll(async () => {
  plane = await startControlPlane({ name: 'seed-crd' });
  conversion = await startTestConversionWebhook();
  // The source is allowed to manage the built-in kind's CRD; without it the CRD is a Conflict (test/safety/builtin-crds).
  harness = await startPipelineHarness(plane.kubeconfig, inject('redisUrl'), { pipeline: { builtinCrdSources: { 'configwatchers.k8spatterns.com': ['test'] } } });
  await harness.repo.write('crd.yaml', await readFile(`${seedDir}/crd.yaml`, 'utf8'));
  await harness.repo.write('cr.yaml', await readFile(`${seedDir}/cr.yaml`, 'utf8'));
  await harness.repo.write('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: operator-test\n');
  await harness.repo.write('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: webapp-config\n  namespace: operator-test\ndata:\n  message: hello\n');
});
afterAll(async () => {
  await harness?.stop();
  await plane?.stop();
  await conversion?.stop();
});

describe('ConfigWatcher with the original CRD', () => {
  it('reconciles with status in the store only, says why, and still restarts pods', async () => {
    await harness.pushAndReconcile('the seed example, unchanged');
    // The ConfigWatcher may have run before its ConfigMap existed; its requeue comes next.
    await harness.reconcileKey(key, 'resync');
    // Tidemark leaves a built-in CRD alone that a source is allowed to manage through Git.
    const gitManaged = new Set(['configwatchers.k8spatterns.com']);
    expect(await installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion(), { gitManaged })).not.toContain('CustomResourceDefinition configwatchers.k8spatterns.com');
    const crd = await plane.kubectl(['get', 'crd', 'configwatchers.k8spatterns.com', '-o', 'jsonpath={.spec.versions[0].subresources}']);
    expect(crd).toBe('');

    const first = await harness.statusStore.get(harness.cluster, key);
    expect(first?.warnings?.[0]).toMatch(/has no status subresource, so status is kept in Tidemark's status store only/);
    expect(first?.kindStatus?.lastConfigMapHash).toMatch(/^[0-9a-f]{64}$/);
    expect(findCondition(first?.conditions, 'Ready')?.status).toBe('True');
    const events = await plane.kubectl(['get', 'events', '-n', 'operator-test', '--field-selector', 'reason=StatusSubresourceMissing', '-o', 'name']);
    expect(events.trim().split('\n')).toHaveLength(1);

    await applyObject(harness.connection, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'webapp-1', namespace: 'operator-test', labels: { app: 'webapp' } }, spec: { containers: [{ name: 'app', image: 'k8spatterns/mini-http-server' }] } });
    await plane.kubectl(['patch', 'configmap', 'webapp-config', '-n', 'operator-test', '--type=merge', '-p', '{"data":{"message":"changed"}}']);
    await harness.reconcileKey(key, 'watch');
    expect(await listObjects(harness.connection, 'v1', 'Pod', 'operator-test')).toEqual([]);
    expect((await harness.statusStore.get(harness.cluster, key))?.kindStatus?.restarts).toBe(1);
  });
});
