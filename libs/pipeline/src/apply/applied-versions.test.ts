import { describe, expect, it } from 'vitest';
import type { ChangeSetEntry } from '@tidemark/cluster';
import { contentHash, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import { appliedBefore, appliedVersionOf, hashedOnce, withResourceVersion } from './apply-results';

const desired: KubernetesManifest = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } };
const live = (resourceVersion: string, uid = 'u-1'): KubernetesManifest => ({ ...desired, metadata: { ...desired.metadata, uid, resourceVersion } });
const entry = (action: ChangeSetEntry['action'], object: KubernetesManifest, warnings?: string[]): ChangeSetEntry => ({ subject: 'Deployment shop/web', action, object, ...(warnings ? { warnings } : {}) });

function recordOf(versions: unknown): ObjectStatus {
  return { cluster: 'c', objectKey: 'k', source: 's', apiVersion: 'v1', kind: 'K', namespace: '', name: 'n', conditions: [], inventory: [], updatedAt: '', appliedVersions: versions as ObjectStatus['appliedVersions'] };
}

describe('appliedBefore', () => {
  const [id, version] = appliedVersionOf(desired, entry('configured', live('7'), ['deprecated']))!;
  const previous = recordOf({ [id]: version });

  it('says yes, with the warnings of then, for the same object at the same uid and resourceVersion', () => {
    expect(appliedBefore(previous)(desired, live('7'))).toEqual({ warnings: ['deprecated'] });
  });

  it('says no once the live object moved (a hand edit), was recreated, or Git changed', () => {
    expect(appliedBefore(previous)(desired, live('8'))).toBeUndefined();
    expect(appliedBefore(previous)(desired, live('7', 'u-2'))).toBeUndefined();
    expect(appliedBefore(previous)({ ...desired, spec: { replicas: 3 } }, live('7'))).toBeUndefined();
    expect(appliedBefore(undefined)(desired, live('7'))).toBeUndefined();
  });

  it('says no for a record that does not hold well-formed versions', () => {
    expect(appliedBefore(recordOf({ [id]: { ...version, resourceVersion: 7 } }))(desired, live('7'))).toBeUndefined();
    expect(appliedBefore(recordOf({ [id]: { ...version, warnings: [1] } }))(desired, live('7'))).toBeUndefined();
    expect(appliedBefore(recordOf('nonsense'))(desired, live('7'))).toBeUndefined();
  });
});

describe('appliedVersionOf', () => {
  it('keeps nothing for drift left in place, or for a Secret', () => {
    expect(appliedVersionOf(desired, entry('skipped', live('7')))).toBeUndefined();
    const secret: KubernetesManifest = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { password: 'aHVudGVyMg==' } };
    expect(appliedVersionOf(secret, entry('unchanged', { ...secret, metadata: { ...secret.metadata, uid: 'u', resourceVersion: '1' } }))).toBeUndefined();
  });

  it('records the version the apply left, keyed by group, kind, namespace and name', () => {
    expect(appliedVersionOf(desired, entry('created', live('3')))).toEqual(['apps/Deployment/shop/web', { hash: expect.stringMatching(/^[0-9a-f]{64}$/), uid: 'u-1', resourceVersion: '3' }]);
  });
});

describe('withResourceVersion', () => {
  it('moves the version to the one a status write left, for the same object only', () => {
    const [id, version] = appliedVersionOf(desired, entry('unchanged', live('7')))!;
    expect(withResourceVersion({ [id]: version }, desired, live('9'))[id]?.resourceVersion).toBe('9');
    expect(withResourceVersion({ [id]: version }, desired, live('9', 'u-2'))[id]?.resourceVersion).toBe('7');
  });
});

describe('hashedOnce', () => {
  it('gives contentHash, and hashes one object once (the apply stage asks before and after its write)', () => {
    const hashOf = hashedOnce();
    const object = structuredClone(desired);
    const first = hashOf(object);
    expect(first).toBe(contentHash(desired));
    // A second look at the very same object is the remembered hash, not a new one.
    (object.spec as { replicas: number }).replicas = 9;
    expect(hashOf(object)).toBe(first);
    expect(hashOf(structuredClone(object))).toBe(contentHash(object));
  });

  it('leaves appliedBefore and appliedVersionOf answering as with contentHash', () => {
    const hashOf = hashedOnce();
    const [id, version] = appliedVersionOf(desired, entry('configured', live('7')), hashOf)!;
    expect(version.hash).toBe(contentHash(desired));
    expect(appliedBefore(recordOf({ [id]: version }), hashOf)(desired, live('7'))).toEqual({ warnings: [] });
  });
});
