// WebApp end to end on a full control plane (real deployment, replicaset and HPA controllers,
// scheduler, KWOK nodes): render, features, Ready, HPA ownership, override, validation,
// finalizer, prune.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject, listObjects } from '@tidemark/cluster';
import { findCondition, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl, type ControlPlane } from '@tidemark/testing';
import type { PipelineHarness } from '../support/pipeline-harness';
import { startFullPlaneHarness, type FullPlaneHarness } from '../support/full-plane-harness';

const namespace = `webapp-${randomUUID().slice(0, 8)}`;
const key = `tidemark.dev/WebApp/${namespace}/shop`;
let plane: ControlPlane;
let harness: PipelineHarness;
let rig: FullPlaneHarness | undefined;

type Deployment = KubernetesManifest & { spec: { replicas?: number; template: { metadata: { annotations?: Record<string, string> }; spec: { containers: { name: string; image: string; env?: { name: string; value?: string }[] }[] } } } };

function webApp(spec: string): string {
  return `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n${spec}`;
}

const get = (kind: string, apiVersion: string, name = 'shop') => getObject(harness.connection, { apiVersion, kind, namespace, name });

beforeAll(async () => {
  rig = await startFullPlaneHarness('webapp', inject('redisUrl'), namespace);
  ({ plane, harness } = rig);
});
afterAll(async () => {
  await rig?.stop();
});

describe('WebApp', () => {
  it('renders the base and the config feature, and shows status through kubectl', async () => {
    await harness.repo.write('shop.yaml', webApp('  image: nginx:1.27\n  replicas: 2\n  features:\n    config:\n      enabled: true\n      data:\n        GREETING: hello\n'));
    const { poll, results } = await harness.pushAndReconcile('add shop');
    expect(results.get(key)).toEqual({ kind: 'requeue', afterMs: 5_000 });

    const deployment = (await get('Deployment', 'apps/v1')) as Deployment;
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0]?.image).toBe('nginx:1.27');
    expect(deployment.spec.template.metadata.annotations?.['tidemark.dev/config-hash']).toMatch(/^[0-9a-f]{16,}$/);
    expect(await get('Service', 'v1')).toBeDefined();
    expect(await get('ServiceAccount', 'v1')).toBeDefined();
    const configMaps = await kubectl(plane.kubeconfigPath, ['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'jsonpath={.items[*].data.GREETING}']);
    expect(configMaps).toBe('hello');

    const table = await kubectl(plane.kubeconfigPath, ['get', 'webapps', '-n', namespace]);
    // kubectl shows the storage version, v1beta1: the image in parts, then readiness and why.
    expect(table).toMatch(/NAME\s+IMAGE\s+TAG\s+REPLICAS\s+AVAILABLE\s+READY\s+REASON\s+AGE/);
    expect(table).toMatch(/shop\s+nginx\s+1\.27\s+2\s+(\d+\s+)?False\s+\w+/);
    const status = JSON.parse(await kubectl(plane.kubeconfigPath, ['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status}'])) as Record<string, unknown>;
    const cr = await get('WebApp', 'tidemark.dev/v1alpha1');
    expect(status.observedGeneration).toBe(cr?.metadata.generation);
    expect(status.lastAppliedRevision).toBe(poll.revision);
    expect((status.inventory as unknown[]).length).toBe(4);
    expect(cr?.metadata.finalizers).toContain('tidemark.dev/cleanup');
  });

  it('turns Ready once the deployment controller has rolled out its pods', async () => {
    await expect.poll(async () => {
      await harness.reconcileKey(key, 'resync');
      return findCondition((await harness.statusStore.get(harness.cluster, key))?.conditions, 'Ready')?.status;
    }, { timeout: 90_000, interval: 500 }).toBe('True');
    const status = await harness.statusStore.get(harness.cluster, key);
    expect(findCondition(status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    expect(await kubectl(plane.kubeconfigPath, ['get', 'webapp', 'shop', '-n', namespace, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).toBe('True');
    const pods = (await listObjects(harness.connection, 'v1', 'Pod', namespace, { 'app.kubernetes.io/name': 'shop' })) as (KubernetesManifest & { status?: { phase?: string } })[];
    expect(pods.map((pod) => pod.status?.phase)).toEqual(['Running', 'Running']);
  });

  it('with autoscaling, adds an HPA and leaves replicas to the HPA controller; disabling config prunes the ConfigMap', async () => {
    await harness.repo.write('shop.yaml', webApp('  image: nginx:1.27\n  features:\n    autoscaling:\n      enabled: true\n      minReplicas: 3\n      maxReplicas: 6\n'));
    await harness.pushAndReconcile('autoscale shop');
    expect(await get('HorizontalPodAutoscaler', 'autoscaling/v2')).toBeDefined();
    // The rig has no metrics server, but the HPA controller still raises replicas to minReplicas.
    await expect.poll(async () => ((await get('Deployment', 'apps/v1')) as Deployment | undefined)?.spec.replicas, { timeout: 60_000 }).toBe(3);
    // The replicas are the HPA's: Tidemark's apply no longer names them, and the HPA says why it scaled.
    const managedFields = ((await get('Deployment', 'apps/v1'))?.metadata.managedFields ?? []) as { manager?: string; operation?: string; fieldsV1?: { 'f:spec'?: Record<string, unknown> } }[];
    expect(managedFields.find((entry) => entry.manager === 'tidemark' && entry.operation === 'Apply')?.fieldsV1?.['f:spec']).not.toHaveProperty('f:replicas');
    const hpaStatus = (await get('HorizontalPodAutoscaler', 'autoscaling/v2'))?.status as { desiredReplicas?: number; conditions?: { type: string; status: string; reason: string }[] } | undefined;
    expect(hpaStatus?.desiredReplicas).toBe(3);
    expect(hpaStatus?.conditions?.find((condition) => condition.type === 'AbleToScale')).toMatchObject({ status: 'True' });
    // Without metrics the HPA is not active, and the WebApp says so rather than claiming Ready.
    await expect.poll(async () => {
      await harness.reconcileKey(key, 'resync');
      const ready = findCondition((await harness.statusStore.get(harness.cluster, key))?.conditions, 'Ready');
      return `${ready?.status} ${ready?.message}`;
    }, { timeout: 60_000, interval: 500 }).toMatch(/^False .*not scaling yet.*metrics/);
    expect(((await get('Deployment', 'apps/v1')) as Deployment).spec.replicas).toBe(3);
    const configMaps = await kubectl(plane.kubeconfigPath, ['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'name']);
    expect(configMaps.trim()).toBe('');
  });

  it('applies spec.override last, over the base and the features', async () => {
    await harness.repo.write('shop.yaml', webApp([
      '  image: nginx:1.27',
      '  replicas: 1',
      '  features:',
      '    metrics:',
      '      enabled: true',
      '  override:',
      '    deployment:',
      '      spec:',
      '        template:',
      '          spec:',
      '            containers:',
      '              - name: app',
      '                image: nginx:1.28-override',
      '                env:',
      '                  - name: METRICS_PORT',
      '                    value: "9999"',
      '',
    ].join('\n')));
    await harness.pushAndReconcile('override shop');
    const container = ((await get('Deployment', 'apps/v1')) as Deployment).spec.template.spec.containers[0];
    expect(container?.image).toBe('nginx:1.28-override');
    expect(container?.env?.find((variable) => variable.name === 'METRICS_PORT')?.value).toBe('9999');
  });

  it('stalls an invalid WebApp with the API server message (a CEL rule) and applies nothing of it', async () => {
    await harness.repo.write('broken.yaml', webApp('  image: nginx:1.27\n  features:\n    autoscaling:\n      enabled: true\n      minReplicas: 5\n      maxReplicas: 2\n').replaceAll('name: shop', 'name: broken'));
    const { results } = await harness.pushAndReconcile('broken webapp');
    const failure = results.get(`tidemark.dev/WebApp/${namespace}/broken`);
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as Error).message).toMatch(/broken\.yaml: WebApp webapp-[0-9a-f]+\/broken is invalid: .*maxReplicas must be at least minReplicas/);
    const status = await harness.statusStore.get(harness.cluster, `tidemark.dev/WebApp/${namespace}/broken`);
    expect(findCondition(status?.conditions, 'Stalled')).toMatchObject({ status: 'True', reason: 'ValidationFailed' });
    expect(await get('WebApp', 'tidemark.dev/v1alpha1', 'broken')).toBeUndefined();
    expect(await get('Deployment', 'apps/v1', 'broken')).toBeUndefined();
  });

  it('cleans up owned objects through the finalizer when the CR is deleted by hand, then recreates it from Git', async () => {
    await kubectl(plane.kubeconfigPath, ['delete', 'webapp', 'shop', '-n', namespace, '--wait=false']);
    expect(await harness.reconcileKey(key, 'watch')).toEqual({ kind: 'requeue', afterMs: 1_000 });
    expect(await get('Deployment', 'apps/v1')).toBeUndefined();
    expect(await get('WebApp', 'tidemark.dev/v1alpha1')).toBeUndefined();
    await harness.reconcileKey(key, 'resync');
    expect(await get('WebApp', 'tidemark.dev/v1alpha1')).toBeDefined();
    expect(await get('Deployment', 'apps/v1')).toBeDefined();
  });

  it('prunes the CR and everything it rendered when it is removed from Git', async () => {
    await harness.repo.delete('shop.yaml');
    const { results } = await harness.pushAndReconcile('remove shop');
    expect(results.get(key)).toEqual({ kind: 'done' });
    for (const [kind, apiVersion] of [['WebApp', 'tidemark.dev/v1alpha1'], ['Deployment', 'apps/v1'], ['Service', 'v1'], ['ServiceAccount', 'v1']] as const) {
      expect(await get(kind, apiVersion), kind).toBeUndefined();
    }
  });
});
