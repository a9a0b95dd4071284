import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyObject, ClusterConnection, getObject, listObjects, watchObjects } from '@tidemark/cluster';
import { startStandInClusters, type StandInClusters } from './stand-in-clusters';

// The stand-in is what the agents-fleet bench's agents talk to; these check it through Tidemark's own client.
let standIns: StandInClusters;
let east: ClusterConnection;
let west: ClusterConnection;
const configMap = (value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'team' }, data: { value } });

beforeAll(async () => {
  standIns = await startStandInClusters(['east', 'west']);
  east = ClusterConnection.connect({ cluster: 'east', kubeconfig: standIns.kubeconfigFor('east') });
  west = ClusterConnection.connect({ cluster: 'west', kubeconfig: standIns.kubeconfigFor('west') });
});

afterAll(async () => {
  east?.close();
  west?.close();
  await standIns?.stop();
});

describe('stand-in clusters', () => {
  it('stores an apply per cluster, and an unchanged apply keeps its resourceVersion', async () => {
    const first = await applyObject(east, configMap('a'));
    expect(await applyObject(east, configMap('a'))).toMatchObject({ metadata: { resourceVersion: first.metadata.resourceVersion, uid: first.metadata.uid } });
    const changed = await applyObject(east, configMap('b'));
    expect(Number(changed.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
    expect(await getObject(east, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'one' })).toMatchObject({ data: { value: 'b' } });
    expect(await getObject(west, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'one' })).toBeUndefined();
    expect(standIns.requests('east')).toMatchObject({ apply: 3, get: 1 });
  });

  it('does not store a dry-run', async () => {
    await applyObject(west, configMap('dry'), { dryRun: true });
    expect(await listObjects(west, 'v1', 'ConfigMap', 'team')).toEqual([]);
  });

  it('serves a CRD once applied, Established at once', async () => {
    await applyObject(east, {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true }] },
    });
    const crd = await getObject(east, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'widgets.example.com' }) as { status?: { conditions?: { type: string; status: string }[] } };
    expect(crd.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    expect(await applyObject(east, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'team' } })).toMatchObject({ kind: 'Widget' });
  });

  it('streams a change to a watch after its list', async () => {
    const seen: string[] = [];
    const watch = watchObjects(west, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', onEvent: (type, object) => seen.push(`${type} ${(object as { data?: { value?: string } }).data?.value}`) });
    await watch.synced;
    await applyObject(west, configMap('watched'));
    await expect.poll(() => seen).toContain('ADDED watched');
    watch.stop();
  });
});
