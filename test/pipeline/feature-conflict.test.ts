// Two WebApp features that write the same key differently: a terminal error naming both, and
// nothing of the WebApp applied. The extra features are registered the open-closed way, so the
// test runs on a control plane of its own with the WebApp CRD generated from that feature list.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getObject } from '@tidemark/cluster';
import { findCondition, TerminalError } from '@tidemark/contracts';
import { createWebAppPlugin, KindRegistry, webAppFeatures, type WebAppFeature } from '@tidemark/kinds';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { installBuiltinCrds } from '@tidemark/conversion';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';

function logLevelFeature(id: string, level: string): WebAppFeature {
  return {
    id,
    schema: Type.Object({ enabled: Type.Optional(Type.Boolean()) }),
    components: [],
    configure: () => [],
    manage: (_context, managers) => managers.envVar({ name: 'LOG_LEVEL', value: level }),
  };
}

const key = 'tidemark.dev/WebApp/default/clash';
let plane: ControlPlane;
let harness: PipelineHarness;
let conversion: TestConversionWebhook;

beforeAll(async () => {
  plane = await startControlPlane({ name: 'features' });
  const kinds = new KindRegistry().register(createWebAppPlugin([...webAppFeatures, logLevelFeature('quiet-logs', 'warn'), logLevelFeature('debug-logs', 'debug')]));
  harness = await startPipelineHarness(plane.kubeconfig, inject('redisUrl'), { kinds });
  conversion = await startTestConversionWebhook(kinds);
  await installBuiltinCrds(harness.connection, kinds, conversion.conversion());
});
afterAll(async () => {
  await harness?.stop();
  await plane?.stop();
  await conversion?.stop();
});

describe('feature conflicts', () => {
  it('stalls a WebApp whose features disagree, naming both, and applies none of its objects', async () => {
    await harness.repo.write('clash.yaml', [
      'apiVersion: tidemark.dev/v1alpha1', 'kind: WebApp', 'metadata:', '  name: clash', '  namespace: default', 'spec:', '  image: nginx:1.27',
      '  features:', '    quiet-logs: {enabled: true}', '    debug-logs: {enabled: true}', '',
    ].join('\n'));
    const { results } = await harness.pushAndReconcile('two features, one env var');
    const failure = results.get(key);
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as TerminalError).code).toBe('FeatureConflict');
    expect((failure as Error).message).toMatch(/quiet-logs/);
    expect((failure as Error).message).toMatch(/debug-logs/);
    const status = await harness.statusStore.get(harness.cluster, key);
    expect(findCondition(status?.conditions, 'Stalled')).toMatchObject({ status: 'True', reason: 'FeatureConflict' });
    expect(await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'clash' })).toBeUndefined();
  });

  it('reconciles once one of them is turned off', async () => {
    await harness.repo.write('clash.yaml', [
      'apiVersion: tidemark.dev/v1alpha1', 'kind: WebApp', 'metadata:', '  name: clash', '  namespace: default', 'spec:', '  image: nginx:1.27',
      '  features:', '    quiet-logs: {enabled: true}', '    debug-logs: {enabled: false}', '',
    ].join('\n'));
    await harness.pushAndReconcile('only quiet logs');
    const deployment = await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'clash' }) as { spec?: { template?: { spec?: { containers?: { env?: { name: string; value: string }[] }[] } } } } | undefined;
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.env).toContainEqual({ name: 'LOG_LEVEL', value: 'warn' });
  });
});
