import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { checkOwnership, ownershipGuard } from './ownership-guard';
import { adjudicatePrune } from './adjudicate';

const owner = 'apps:tidemark.dev/WebApp/team-a/shop';
const entry = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'shop-config' };
const ownerFields = { 'f:metadata': { 'f:annotations': { 'f:tidemark.dev/owner': {} } } };

function live(annotation: string | undefined, managedFields: unknown[]): KubernetesManifest {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'shop-config', namespace: 'team-a', ...(annotation ? { annotations: { 'tidemark.dev/owner': annotation } } : {}), managedFields },
  };
}
// The ownership guard reads only the object: it needs no context.
const context = undefined as never;
const check = (object: KubernetesManifest) => checkOwnership({ entry, live: object, owner, fieldManager: 'tidemark', context });

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

  it('adjudicatePrune names the guard that refused', async () => {
    expect(await adjudicatePrune({ entry, live: live(undefined, []), owner, fieldManager: 'tidemark', context }, [ownershipGuard])).toMatchObject({ allowed: false, guard: 'ownership' });
  });
});
