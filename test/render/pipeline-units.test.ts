// Rendered objects go through the same pipeline as plain ones: applied with server-side apply,
// status with the unit as their place; a broken kustomization prunes nothing and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { renderTools, rendering } from './render-fixture';

const suffix = Math.random().toString(36).slice(2, 8);
const namespace = `tm-render-${suffix}`;
let harness: PipelineHarness;

const configMapKey = `core/ConfigMap/${namespace}/rendered-settings`;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { rendering: rendering(await renderTools()) });
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('base/settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: base\n');
  await harness.repo.write('base/kustomization.yaml', 'resources:\n  - settings.yaml\n');
  await harness.repo.write('app/kustomization.yaml', `namespace: ${namespace}\nnamePrefix: rendered-\nresources:\n  - ../base\n`);
});

afterAll(async () => {
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await harness?.stop();
});

describe('rendered objects in the pipeline', () => {
  it('applies a kustomization\'s objects and records the unit as their place', async () => {
    const { results } = await harness.pushAndReconcile('a kustomize unit');
    expect(results.get(configMapKey)).not.toBeInstanceOf(Error);
    const live = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'rendered-settings' });
    expect(live?.data).toEqual({ mode: 'base' });
    const status = await harness.statusStore.get(harness.cluster, configMapKey);
    expect(status?.path).toBe('app/');
    expect(findCondition(status?.conditions, 'Ready')?.status).toBe('True');
  });

  it('keeps the applied objects when the kustomization breaks, and marks them with kustomize\'s message', async () => {
    await harness.repo.write('app/kustomization.yaml', `namespace: ${namespace}\nnamePrefix: rendered-\nresources:\n  - ../base\n  - gone.yaml\n`);
    const { poll, results } = await harness.pushAndReconcile('a broken kustomization');
    expect(poll.changes.filter((change) => change.change === 'removed')).toEqual([]);
    expect(results.get(configMapKey)).toBeInstanceOf(Error);
    const live = await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'rendered-settings' });
    expect(live?.data).toEqual({ mode: 'base' });
    const status = await harness.statusStore.get(harness.cluster, configMapKey);
    const stalled = findCondition(status?.conditions, 'Stalled');
    expect(stalled?.status).toBe('True');
    expect(stalled?.message).toContain('app/');
    expect(stalled?.message).toContain('gone.yaml');
  });
});
