import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { sameObject } from './compare';
import { ObjectCache } from './object-cache';
import { isTrimmed, trimManagedFields } from './trim-managed-fields';

/** A Deployment as the API server showed it after Tidemark's apply, `kubectl scale`, and the controller's status write. */
function deployment(): KubernetesManifest {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: {
      name: 'web', namespace: 'shop', resourceVersion: '12',
      managedFields: [
        { manager: 'tidemark', operation: 'Apply', time: '2026-12-06T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } } },
        { manager: 'kubectl', operation: 'Update', subresource: 'scale', time: '2026-12-06T10:01:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', time: '2026-12-06T10:02:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:replicas': {}, 'f:conditions': { '.': {}, 'k:{"type":"Available"}': { 'f:status': {} } } } } },
        { manager: 'kubectl-label', operation: 'Update', time: '2026-12-06T10:03:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } } } },
      ],
    },
    spec: { replicas: 3 },
  };
}

const own = new Set(['tidemark']);

describe('trimManagedFields', () => {
  it('keeps its own entries whole, and of the others their headers and what overlaps its fields', () => {
    const entries = trimManagedFields(deployment(), own).metadata.managedFields as Record<string, unknown>[];
    const original = deployment().metadata.managedFields as Record<string, unknown>[];
    expect(entries[0]).toEqual(original[0]);
    expect(entries[1]).toEqual(original[1]);
    expect(entries[2]).toEqual({ ...original[2], fieldsV1: {} });
    expect(entries[3]).toEqual({ ...original[3], fieldsV1: {} });
  });

  it('leaves an object with nothing to drop as it is', () => {
    const object = deployment();
    object.metadata.managedFields = (object.metadata.managedFields as unknown[]).slice(0, 2);
    expect(trimManagedFields(object, own)).toBe(object);
  });

  it('compares equal to the whole object once the comparison trims both sides', () => {
    const trimmed = trimManagedFields(deployment(), own);
    expect(sameObject(deployment(), trimmed)).toBe(false);
    expect(sameObject(deployment(), trimmed, 'tidemark')).toBe(true);
    const taken = deployment();
    (taken.metadata.managedFields as { fieldsV1: unknown }[])[0]!.fieldsV1 = { 'f:metadata': { 'f:labels': { 'f:app': {} } } };
    expect(sameObject(taken, trimmed, 'tidemark')).toBe(false);
  });

  it('is what a cache with own managers holds, and its answers say so', () => {
    const cache = new ObjectCache({ ownManagers: ['tidemark'] });
    const feed = cache.watchHandlers('apps/v1', 'Deployment');
    feed.onProgress({ type: 'listing' });
    feed.onEvent('ADDED', deployment(), true);
    feed.onProgress({ type: 'listed', resourceVersion: '12' });
    const answer = cache.lookup({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' })!.object!;
    expect(answer.metadata.managedFields).toEqual(trimManagedFields(deployment(), own).metadata.managedFields);
    expect(isTrimmed(answer)).toBe(true);
    const whole = new ObjectCache();
    const wholeFeed = whole.watchHandlers('apps/v1', 'Deployment');
    wholeFeed.onProgress({ type: 'listing' });
    wholeFeed.onEvent('ADDED', deployment(), true);
    wholeFeed.onProgress({ type: 'listed', resourceVersion: '12' });
    expect(cache.sizeInJson()).toBeLessThan(whole.sizeInJson());
  });
});
