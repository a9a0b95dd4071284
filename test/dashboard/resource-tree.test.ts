// The reconciler's tree watches on a real kube-apiserver: ReplicaSets and Pods (made here with owner
// references, as the controllers would) are recorded under their Deployment's uid in the status store.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { applyObject, applyStatus, ClusterConnection, deleteObject } from '@tidemark/cluster';
import type { KubernetesManifest, LiveChild } from '@tidemark/contracts';
import { StatusStore } from '@tidemark/status-store';
import { startTreeWatches } from '@tidemark/watches';

const namespace = `tree-${randomUUID().slice(0, 8)}`;
const prefix = `tree-${randomUUID().slice(0, 8)}`;
let connection: ClusterConnection;
let redis: Redis;
let store: StatusStore;
let trees: { stop(): Promise<void> };
let deployment: KubernetesManifest;

const ownedBy = (owner: KubernetesManifest) => [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true }];

async function childrenOf(uid: string, count: number): Promise<LiveChild[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const children = (await store.liveChildren('shared', [uid])).get(uid) ?? [];
    if (children.length === count) return children;
    if (Date.now() > deadline) throw new Error(`expected ${count} children under ${uid}, have ${JSON.stringify(children)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig'), fieldManager: 'tree-test' });
  redis = new Redis(inject('redisUrl'));
  store = new StatusStore({ redis, prefix });
  await applyObject(connection, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  // The rig runs no controller that would create the default ServiceAccount a Pod needs.
  await applyObject(connection, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
  deployment = await applyObject(connection, {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
  });
  trees = startTreeWatches({ clusters: new Map([['shared', connection]]), statusStore: store, redis, flushMs: 50, refreshMs: 1_000 });
});
afterAll(async () => {
  await trees?.stop();
  await deleteObject(connection, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  connection.close();
});

describe('resource-tree watches', () => {
  it('records a Deployment\'s ReplicaSet and its Pod with their health, and forgets a deleted Pod', async () => {
    const replicaSet = await applyObject(connection, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-5d8f', namespace, ownerReferences: ownedBy(deployment), labels: { app: 'web', pod: 'x' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web', pod: 'x' } }, template: { metadata: { labels: { app: 'web', pod: 'x' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    });
    const pod = await applyObject(connection, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-5d8f-a1', namespace, ownerReferences: ownedBy(replicaSet), labels: { app: 'web', pod: 'x' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
    const children = await childrenOf(deployment.metadata.uid!, 2);
    expect(children.map((child) => [child.kind, child.name, child.health, child.ownerUid])).toEqual([
      ['ReplicaSet', 'web-5d8f', 'Progressing', deployment.metadata.uid],
      ['Pod', 'web-5d8f-a1', 'Progressing', replicaSet.metadata.uid],
    ]);

    // The kubelet's part, played here: the Pod becomes ready, and the tree follows.
    await applyStatus(connection, pod, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    await expect.poll(async () => (await store.liveChildren('shared', [deployment.metadata.uid!])).get(deployment.metadata.uid!)?.find((child) => child.kind === 'Pod')?.health, { timeout: 15_000 }).toBe('Ready');

    await deleteObject(connection, { group: '', kind: 'Pod', namespace, name: 'web-5d8f-a1' });
    expect((await childrenOf(deployment.metadata.uid!, 1)).map((child) => child.kind)).toEqual(['ReplicaSet']);
  });
});
