// Health rules and controller effects against the real controllers: a full control plane runs
// kube-controller-manager, kube-scheduler and KWOK nodes, so Deployments roll out through
// ReplicaSets, pods are scheduled and turn Running, Jobs complete, the garbage collector follows
// a prune, and the namespace controller finishes a deletion. (WebApp Ready and the HPA
// controller are in test/pipeline/webapp.test.ts.)
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject, listObjects } from '@tidemark/cluster';
import { findCondition, type KubernetesManifest } from '@tidemark/contracts';
import type { ControlPlane } from '@tidemark/testing';
import type { PipelineHarness } from '../support/pipeline-harness';
import { startFullPlaneHarness, type FullPlaneHarness } from '../support/full-plane-harness';

const namespace = `workloads-${randomUUID().slice(0, 8)}`;
let plane: ControlPlane;
let harness: PipelineHarness;
let rig: FullPlaneHarness | undefined;

type Pod = KubernetesManifest & { metadata: { ownerReferences?: { kind: string; name: string }[] }; spec: { nodeName?: string }; status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] } };

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
});

function manifest(apiVersion: string, kind: string, name: string, spec: unknown, extraNamespace = namespace): string {
  return JSON.stringify({ apiVersion, kind, metadata: { name, namespace: extraNamespace }, spec });
}

/**
 * reconcileUntil reconciles the object (as its requeue would) until its Ready condition reads
 * `status message` matching want, and returns that message.
 */
async function reconcileUntil(objectKey: string, want: RegExp): Promise<string> {
  let seen = '';
  await expect.poll(async () => {
    await harness.reconcileKey(objectKey, 'resync');
    const ready = findCondition((await harness.statusStore.get(harness.cluster, objectKey))?.conditions, 'Ready');
    seen = `${ready?.status} ${ready?.message}`;
    return seen;
  }, { timeout: 90_000, interval: 500 }).toMatch(want);
  return seen;
}

const pods = (app: string) => listObjects(harness.connection, 'v1', 'Pod', namespace, { app }) as Promise<Pod[]>;
const shopSelector = { 'app.kubernetes.io/name': 'shop' };
const shopPods = () => listObjects(harness.connection, 'v1', 'Pod', namespace, shopSelector) as Promise<Pod[]>;

beforeAll(async () => {
  rig = await startFullPlaneHarness('workloads', inject('redisUrl'), namespace);
  ({ plane, harness } = rig);
});
afterAll(async () => {
  await rig?.stop();
});

describe('workloads on the real controllers', () => {
  // Ready's message is the apply summary once every owned object is healthy; before that it is
  // the health rule's message, as the unschedulable Deployment below shows.
  it('a Deployment turns Ready once its ReplicaSet pods are scheduled on simulated nodes and Running', async () => {
    await harness.repo.write('web.yaml', manifest('apps/v1', 'Deployment', 'web', { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') }));
    await harness.pushAndReconcile('a Deployment');
    await reconcileUntil(`apps/Deployment/${namespace}/web`, /^True /);
    const running = await pods('web');
    expect(running).toHaveLength(3);
    for (const pod of running) {
      expect(pod.spec.nodeName).toMatch(/^kwok-node-\d+$/);
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
      expect(pod.status?.conditions?.find((condition) => condition.type === 'Ready')?.status).toBe('True');
      expect(pod.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    }
  });

  it('a Deployment whose pods cannot be scheduled stays Progressing with a message that says so', async () => {
    await harness.repo.write('stuck.yaml', manifest('apps/v1', 'Deployment', 'stuck', {
      replicas: 1, selector: { matchLabels: { app: 'stuck' } },
      template: { ...podTemplate('stuck'), spec: { ...podTemplate('stuck').spec, nodeSelector: { 'no-such-node': 'true' } } },
    }));
    await harness.pushAndReconcile('a Deployment nothing can run');
    await expect.poll(async () => (await pods('stuck'))[0]?.status?.conditions?.find((condition) => condition.type === 'PodScheduled')?.status, { timeout: 60_000 }).toBe('False');
    await reconcileUntil(`apps/Deployment/${namespace}/stuck`, /^False .*has 0 of 1 replicas available; check the pods' readiness and events/);
  });

  it('a StatefulSet turns Ready when its ordered pods are ready', async () => {
    await harness.repo.write('db.yaml', [
      manifest('v1', 'Service', 'db', { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] }),
      manifest('apps/v1', 'StatefulSet', 'db', { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: podTemplate('db') }),
    ].join('\n---\n'));
    await harness.pushAndReconcile('a StatefulSet');
    await reconcileUntil(`apps/StatefulSet/${namespace}/db`, /^True /);
    expect((await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name: 'db' }))?.status).toMatchObject({ readyReplicas: 2 });
    expect((await pods('db')).map((pod) => pod.metadata.name).sort()).toEqual(['db-0', 'db-1']);
  });

  it('a DaemonSet turns Ready with one pod on every simulated node', async () => {
    await harness.repo.write('agent.yaml', manifest('apps/v1', 'DaemonSet', 'agent', { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') }));
    await harness.pushAndReconcile('a DaemonSet');
    await reconcileUntil(`apps/DaemonSet/${namespace}/agent`, /^True /);
    expect((await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'DaemonSet', namespace, name: 'agent' }))?.status).toMatchObject({ desiredNumberScheduled: 2, numberAvailable: 2 });
    expect(new Set((await pods('agent')).map((pod) => pod.spec.nodeName))).toEqual(new Set(['kwok-node-0', 'kwok-node-1']));
  });

  it('a Job turns Ready when the Job controller marks it Complete, and one past its deadline fails', async () => {
    await harness.repo.write('migrate.yaml', manifest('batch/v1', 'Job', 'migrate', { template: { ...podTemplate('migrate'), spec: { ...podTemplate('migrate').spec, restartPolicy: 'Never' } } }));
    await harness.repo.write('late.yaml', manifest('batch/v1', 'Job', 'late', {
      activeDeadlineSeconds: 2, backoffLimit: 0,
      template: { ...podTemplate('late'), spec: { ...podTemplate('late').spec, restartPolicy: 'Never', nodeSelector: { 'no-such-node': 'true' } } },
    }));
    await harness.pushAndReconcile('two Jobs');
    await reconcileUntil(`batch/Job/${namespace}/migrate`, /^True /);
    const job = (await getObject(harness.connection, { apiVersion: 'batch/v1', kind: 'Job', namespace, name: 'migrate' })) as KubernetesManifest & { status?: { succeeded?: number; conditions?: { type: string; status: string }[] } };
    expect(job.status?.succeeded).toBe(1);
    expect(job.status?.conditions?.find((condition) => condition.type === 'Complete')?.status).toBe('True');
    await reconcileUntil(`batch/Job/${namespace}/late`, /^False .*failed.*deadline/i);
  });
});

describe('controller effects Tidemark relies on', () => {
  const shopKey = `tidemark.dev/WebApp/${namespace}/shop`;
  const webApp = (spec: string) => `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n${spec}`;
  const deployment = async () => (await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'shop' })) as (KubernetesManifest & { spec: { replicas?: number } }) | undefined;

  it('the garbage collector removes the ReplicaSets and pods of a Deployment that Tidemark prunes', async () => {
    await harness.repo.write('shop.yaml', webApp('  image: nginx:1.27\n  replicas: 2\n'));
    await harness.pushAndReconcile('a WebApp');
    await reconcileUntil(shopKey, /^True /);
    expect(await shopPods()).toHaveLength(2);
    expect(await listObjects(harness.connection, 'apps/v1', 'ReplicaSet', namespace, shopSelector)).toHaveLength(1);

    await harness.repo.delete('shop.yaml');
    await harness.pushAndReconcile('drop shop');
    expect(await deployment()).toBeUndefined();
    await expect.poll(async () => (await listObjects(harness.connection, 'apps/v1', 'ReplicaSet', namespace, shopSelector)).length, { timeout: 60_000 }).toBe(0);
    await expect.poll(async () => (await shopPods()).length, { timeout: 60_000 }).toBe(0);
  });

  it('a Namespace deleted by hand waits in Terminating on Tidemark\'s finalizer, and goes once the WebApp in it is cleaned up', async () => {
    const other = `${namespace}-gone`;
    const otherKey = `tidemark.dev/WebApp/${other}/shop`;
    await harness.repo.write('gone/ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${other}\n`);
    await harness.repo.write('gone/shop.yaml', webApp('  image: nginx:1.27\n  replicas: 1\n').replace(`namespace: ${namespace}`, `namespace: ${other}`));
    await harness.pushAndReconcile('a WebApp in a namespace of its own');
    await reconcileUntil(otherKey, /^True /);

    await plane.kubectl(['delete', 'namespace', other, '--wait=false']);
    // The namespace controller deletes the content; the WebApp stays until its finalizer goes.
    await expect.poll(async () => plane.kubectl(['get', 'namespace', other, '-o', 'jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].message}']), { timeout: 60_000 })
      .toMatch(/tidemark\.dev\/cleanup/);
    expect(await plane.kubectl(['get', 'namespace', other, '-o', 'jsonpath={.status.phase}'])).toBe('Terminating');

    await harness.reconcileKey(otherKey, 'watch');
    await expect.poll(async () => getObject(harness.connection, { apiVersion: 'v1', kind: 'Namespace', name: other }), { timeout: 60_000 }).toBeUndefined();
  });
});
