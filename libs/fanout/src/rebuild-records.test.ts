import { describe, expect, it } from 'vitest';
import { findCondition, ownerAnnotation, ownerLabel, ownerLabelValue, type KubernetesManifest } from '@tidemark/contracts';
import { rebuiltRecords } from './rebuild-records';

const at = new Date('2026-12-06T12:00:00Z');
const appliedOwner = (manager = 'tidemark') => [{ manager, operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${ownerAnnotation}`]: {} } } } }];

function live(name: string, options: { owner?: string; label?: string; manager?: string; deleting?: boolean } = {}): KubernetesManifest {
  const owner = 'owner' in options ? options.owner : `apps:core/ConfigMap/team/${name}`;
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name, namespace: 'team', uid: `uid-${name}`,
      labels: { [ownerLabel]: options.label ?? ownerLabelValue(owner ?? '') },
      ...(owner === undefined ? {} : { annotations: { [ownerAnnotation]: owner } }),
      managedFields: appliedOwner(options.manager),
      ...(options.deleting ? { deletionTimestamp: '2026-12-06T11:00:00Z' } : {}),
    },
  };
}

const rebuild = (objects: KubernetesManifest[]) => rebuiltRecords({ source: 'apps', cluster: 'east', objects, fieldManager: 'tidemark', at });

describe('rebuiltRecords', () => {
  it('writes one record per Git object of the source, naming the live object with its uid, waiting for its run', () => {
    const { records, refused } = rebuild([live('a'), live('b')]);
    expect(refused).toEqual([]);
    expect(records.map((record) => record.objectKey)).toEqual(['core/ConfigMap/team/a', 'core/ConfigMap/team/b']);
    expect(records[0]).toMatchObject({ cluster: 'east', source: 'apps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'a',
      inventory: [], resources: [{ name: 'a', uid: 'uid-a' }] });
    expect(findCondition(records[0]!.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RebuiltFromCluster' });
    expect(findCondition(records[0]!.conditions, 'Ready')?.message).toMatch(/Rebuilt from cluster east after Redis lost Tidemark's records/);
  });

  it("leaves another source's objects to that source", () => {
    expect(rebuild([live('a', { owner: 'other:core/ConfigMap/team/a' })])).toEqual({ records: [], refused: [] });
  });

  it('refuses an object that carries the owner label without the annotation: a label is a hint, not a proof', () => {
    const forged = live('forged', { owner: undefined, label: ownerLabelValue('apps:core/ConfigMap/team/forged') });
    const { records, refused } = rebuild([forged]);
    expect(records).toEqual([]);
    expect(refused).toEqual([forged]);
  });

  it('refuses a label that is not the hash of the annotation, an annotation another manager applied, and an object being deleted', () => {
    const { records, refused } = rebuild([
      live('relabelled', { label: ownerLabelValue('apps:core/ConfigMap/team/else') }),
      live('patched', { manager: 'kubectl-client-side-apply' }),
      live('going', { deleting: true }),
      live('bad-key', { owner: 'apps:not-a-key' }),
    ]);
    expect(records).toEqual([]);
    expect(refused.map((object) => object.metadata.name)).toEqual(['relabelled', 'patched', 'going', 'bad-key']);
  });

  it("records a CR's rendered objects under the CR's own Git object", () => {
    const owner = 'apps:k8spatterns.com/WebApp/team/shop';
    const cr = { ...live('shop', { owner }), apiVersion: 'k8spatterns.com/v1', kind: 'WebApp' };
    const deployment = { ...live('shop', { owner }), apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...live('shop', { owner }).metadata, uid: 'uid-deploy' } };
    const [record] = rebuild([cr, deployment]).records;
    expect(record).toMatchObject({ objectKey: 'k8spatterns.com/WebApp/team/shop', apiVersion: 'k8spatterns.com/v1', kind: 'WebApp' });
    expect(record?.resources?.map((resource) => `${resource.kind}:${resource.uid}`)).toEqual(['WebApp:uid-shop', 'Deployment:uid-deploy']);
    expect(record?.inventory).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team', name: 'shop' }]);
  });
});
