// Watch cache bytes per object: Deployments as a real API server holds them after several managers
// wrote them (Tidemark's apply, `kubectl scale`, a label by `kubectl label`, the Deployment
// controller's revision annotation and status, as kube-controller-manager sends them; the rig runs
// no controller-manager, so the bench sends its writes), held by the cache whole and held trimmed to
// what drift needs (trimManagedFields). Bytes are the cache's JSON text, so the figure does not
// depend on the machine's load. Each trimmed object is checked to give the same drift as the
// whole one, and to compare equal to it as server-side apply's dry-run would.
//   npx tsx bench/watch-cache.bench.ts [--objects 200]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ObjectCache, sameObject, trimManagedFields } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { computeDrift } from '@tidemark/drift';
import { startControlPlane } from '@tidemark/testing';
import { figure, pool, printFigures, say } from './support/figures';
import { RawClient } from './support/raw-apply';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '200' } } });
const objects = Number(values.objects);
const namespace = 'cache-bench';
const ownManagers = ['tidemark', 'tidemark-actions', 'tidemark-crds'];
const base = `/apis/apps/v1/namespaces/${namespace}/deployments`;

/** deployment is what Git holds for Deployment i: Tidemark applies it. */
function deployment(index: number): Record<string, unknown> {
  const labels = { app: `web-${index}`, 'app.kubernetes.io/part-of': 'shop' };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: `web-${index}`, namespace, labels, annotations: { 'tidemark.dev/owner': 'shop/Kustomization/web' } },
    spec: {
      replicas: 2, selector: { matchLabels: { app: `web-${index}` } },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 8080, name: 'http' }], env: [{ name: 'MODE', value: 'prod' }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

/** controllerStatus is the status the Deployment controller writes once the rollout is done. */
function controllerStatus(): Record<string, unknown> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, reason: string, message: string) => ({ type, status: 'True', lastUpdateTime: at, lastTransitionTime: at, reason, message });
  return {
    status: {
      observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3,
      conditions: [condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'), condition('Progressing', 'NewReplicaSetAvailable', 'ReplicaSet "web-7d9c8b5f4" has successfully progressed.')],
    },
  };
}

say('starting a control plane');
const plane = await startControlPlane({ name: `bench-cache-${randomUUID().slice(0, 6)}` });
const client = await RawClient.connect(plane.kubeconfig, 8);
try {
  await client.send('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  say(`writing ${objects} Deployments with five field managers`);
  await pool(Array.from({ length: objects }, (_, index) => index), 8, async (index) => {
    const path = `${base}/web-${index}`;
    const writes: [string, string, string, string][] = [
      ['PATCH', `${path}?fieldManager=tidemark&force=true`, JSON.stringify(deployment(index)), 'application/apply-patch+yaml'],
      ['PATCH', `${path}/scale?fieldManager=kubectl`, JSON.stringify({ spec: { replicas: 3 } }), 'application/merge-patch+json'],
      ['PATCH', `${path}?fieldManager=kubectl-label`, JSON.stringify({ metadata: { labels: { team: 'payments', tier: 'frontend' } } }), 'application/merge-patch+json'],
      ['PATCH', `${path}?fieldManager=kube-controller-manager`, JSON.stringify({ metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' } } }), 'application/merge-patch+json'],
      ['PATCH', `${path}/status?fieldManager=kube-controller-manager`, JSON.stringify(controllerStatus()), 'application/merge-patch+json'],
    ];
    for (const [method, url, body, type] of writes) {
      const status = await client.send(method, url, body, type);
      if (status >= 300) throw new Error(`${method} ${url} answered ${status}`);
    }
  });

  const { status, text } = await client.get(base);
  if (status !== 200) throw new Error(`listing Deployments answered ${status}`);
  const items = (JSON.parse(text) as { items: KubernetesManifest[] }).items.map((item) => ({ ...item, apiVersion: 'apps/v1', kind: 'Deployment' }));
  const whole = filled(new ObjectCache(), items);
  const trimmed = filled(new ObjectCache({ ownManagers }), items);
  const perObject = (cache: ObjectCache) => cache.sizeInJson() / items.length;
  const managedFieldsBytes = (object: KubernetesManifest) => JSON.stringify(object.metadata.managedFields ?? []).length;

  // What drift and the unchanged check see must not change: the same items, the same writers.
  let driftChecked = 0;
  for (const item of items) {
    const desired = { ...item, spec: { ...((item as { spec?: Record<string, unknown> }).spec), replicas: 2 } } as KubernetesManifest;
    const kept = trimManagedFields(item, new Set(ownManagers));
    const now = new Date();
    const full = JSON.stringify(computeDrift({ desired, live: item, fieldManager: 'tidemark', now }));
    const fromCache = JSON.stringify(computeDrift({ desired, live: kept, fieldManager: 'tidemark', now }));
    if (full !== fromCache) throw new Error(`${item.metadata.name}: drift differs on the trimmed object: ${full} against ${fromCache}`);
    if (!sameObject(item, kept, 'tidemark')) throw new Error(`${item.metadata.name}: the trimmed object does not compare equal to the whole one`);
    driftChecked += 1;
  }
  say(`drift and the unchanged comparison agree on all ${driftChecked} trimmed objects (spec.replicas: by kubectl)`);

  printFigures('watch-cache', [
    figure('watch cache bytes per Deployment, managedFields trimmed to what drift needs', 'bytes', perObject(trimmed), 'held whole (every manager\'s field set)', perObject(whole)),
    figure('managedFields bytes per Deployment, trimmed', 'bytes', average(items.map((item) => managedFieldsBytes(trimManagedFields(item, new Set(ownManagers))))), 'whole', average(items.map(managedFieldsBytes))),
  ], { objects: items.length, managers: [...new Set(items.flatMap((item) => (item.metadata.managedFields as { manager: string }[]).map((entry) => entry.manager)))] });
} finally {
  client.close();
  await plane.stop();
}

/** filled is a cache fed the items as a completed list, as watchObjects feeds it. */
function filled(cache: ObjectCache, list: KubernetesManifest[]): ObjectCache {
  const feed = cache.watchHandlers('apps/v1', 'Deployment');
  feed.onProgress({ type: 'listing' });
  for (const item of list) feed.onEvent('ADDED', item, true);
  feed.onProgress({ type: 'listed', resourceVersion: '1' });
  return cache;
}

function average(numbers: number[]): number {
  return numbers.reduce((sum, value) => sum + value, 0) / Math.max(1, numbers.length);
}
