import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { checkOwnership, ownershipGuard } from './ownership-guard';
import { adjudicatePrune } from './stage-prune';

const owner = 'apps:tidemark.dev/WebApp/team-a/shop';
const entry = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'shop-config' };
const ownerFields = { 'f:metadata': { 'f:annotations': { 'f:tidemark.dev/owner': {} } } };

function live(annotation: string | undefined, managedFields: unknown[], uid = 'uid-1'): KubernetesManifest {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'shop-config', namespace: 'team-a', uid, ...(annotation ? { annotations: { 'tidemark.dev/owner': annotation } } : {}), managedFields },
  };
}
// Tidemark's own status record of the WebApp's last run (read from Redis).
const record = {
  cluster: 'c', objectKey: 'tidemark.dev/WebApp/team-a/shop', source: 'apps', apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', namespace: 'team-a', name: 'shop',
  inventory: [entry], resources: [{ ...entry, uid: 'uid-1', action: 'created', health: 'Ready' }], appliedVersions: {}, conditions: [],
};
// The ownership guard reads the object and the record: nothing else of the context.
const contextWith = (recorded: unknown) => ({ record: recorded }) as never;
const context = contextWith(record);
const check = (object: KubernetesManifest, recorded: unknown = record) => checkOwnership({ entry, live: object, owner, fieldManager: 'tidemark', context: contextWith(recorded) });
const applied = [{ manager: 'tidemark', operation: 'Apply', fieldsV1: ownerFields }];

describe('ownershipGuard', () => {
  it('allows an object Tidemark applied for this Git object', () => {
    expect(check(live(owner, [{ manager: 'tidemark', operation: 'Apply', fieldsV1: ownerFields }]))).toEqual({ allowed: true });
  });

  it('keeps an object without the owner annotation', () => {
    expect(check(live(undefined, [{ manager: 'tidemark', operation: 'Apply', fieldsV1: {} }]))).toMatchObject({ allowed: false, reason: expect.stringMatching(/carries no tidemark.dev\/owner/) });
  });

  it('keeps an object owned by another Git object', () => {
    expect(check(live('apps:tidemark.dev/WebApp/team-a/other', [{ manager: 'tidemark', operation: 'Apply', fieldsV1: ownerFields }])))
      .toMatchObject({ allowed: false, reason: expect.stringMatching(/owned by apps:tidemark.dev\/WebApp\/team-a\/other, not by apps:/) });
  });

  it('keeps an object whose owner annotation someone else wrote', () => {
    const others = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: ownerFields }, { manager: 'tidemark', operation: 'Apply', fieldsV1: { 'f:data': {} } }];
    expect(check(live(owner, others))).toMatchObject({ allowed: false, reason: expect.stringMatching(/did not apply that annotation/) });
  });

  it('does not count a status write or an update by Tidemark as ownership', () => {
    expect(check(live(owner, [{ manager: 'tidemark', operation: 'Apply', subresource: 'status', fieldsV1: ownerFields }])).allowed).toBe(false);
    expect(check(live(owner, [{ manager: 'tidemark', operation: 'Update', fieldsV1: ownerFields }])).allowed).toBe(false);
  });

  it('keeps an object whose annotation was applied under Tidemark\'s manager name but that Tidemark\'s record does not list', () => {
    const unrecorded = { ...record, inventory: [], resources: [] };
    expect(check(live(owner, applied), unrecorded)).toMatchObject({ allowed: false, reason: expect.stringMatching(/Tidemark's own record of what it applied for .* does not list it/) });
    expect(check(live(owner, applied), null).allowed).toBe(false);
  });

  it('reads the record as hostile input: malformed entries name nothing', () => {
    for (const hostile of ['text', [entry], { inventory: 'ConfigMap' }, { inventory: [{ kind: 'ConfigMap', name: 'shop-config' }, null, 7] }, { resources: [{ ...entry, name: 5 }] }]) {
      expect(check(live(owner, applied), hostile).allowed, JSON.stringify(hostile)).toBe(false);
    }
  });

  it('keeps an object whose uid differs from the one recorded at apply', () => {
    expect(check(live(owner, applied, 'uid-2'))).toMatchObject({ allowed: false, reason: expect.stringMatching(/its uid differs from the one recorded at apply/) });
    const versioned = { ...record, resources: [], appliedVersions: { '/ConfigMap/team-a/shop-config': { hash: 'h', uid: 'uid-3', resourceVersion: '1' } } };
    expect(check(live(owner, applied, 'uid-3'), versioned).allowed).toBe(true);
    expect(check(live(owner, applied, 'uid-1'), versioned).allowed).toBe(false);
  });

  it('allows an entry the record lists without a uid (an older record), and the record\'s own object', () => {
    expect(check(live(owner, applied, 'any'), { ...record, resources: [] }).allowed).toBe(true);
    const self: KubernetesManifest = { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace: 'team-a', uid: 'w', annotations: { 'tidemark.dev/owner': owner }, managedFields: applied } };
    expect(checkOwnership({ entry, live: self, owner, fieldManager: 'tidemark', context }).allowed).toBe(true);
  });

  it('adjudicatePrune names the guard that refused', async () => {
    expect(await adjudicatePrune({ entry, live: live(undefined, []), owner, fieldManager: 'tidemark', context }, [ownershipGuard])).toMatchObject({ allowed: false, guard: 'ownership' });
  });
});
