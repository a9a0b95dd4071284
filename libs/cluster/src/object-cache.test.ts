import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { ObjectCache } from './object-cache';
import { compareResourceVersions } from './resource-version';

const apiVersion = 'apps/v1';
const kind = 'Deployment';
const name = (object: string) => ({ apiVersion, kind, namespace: 'shop', name: object });

function deployment(object: string, resourceVersion: string, replicas = 1): KubernetesManifest {
  return { apiVersion, kind, metadata: { name: object, namespace: 'shop', resourceVersion }, spec: { replicas } };
}

/** listed fills a fresh cache as watchObjects does: listing, the list's items, listed, streaming. */
function listed(cache: ObjectCache, version: string, items: KubernetesManifest[]): void {
  const feed = cache.watchHandlers(apiVersion, kind);
  feed.onProgress({ type: 'listing' });
  for (const item of items) feed.onEvent('ADDED', item, true);
  feed.onProgress({ type: 'listed', resourceVersion: version });
  feed.onProgress({ type: 'streaming' });
}

describe('ObjectCache', () => {
  it('answers nothing before the first list is complete, never "absent"', () => {
    const cache = new ObjectCache();
    const feed = cache.watchHandlers(apiVersion, kind);
    expect(cache.lookup(name('web'))).toBeUndefined();
    feed.onProgress({ type: 'listing' });
    feed.onEvent('ADDED', deployment('web', '10'), true);
    expect(cache.lookup(name('web'))).toBeUndefined();
    expect(cache.lookup(name('other'))).toBeUndefined();
    feed.onProgress({ type: 'listed', resourceVersion: '12' });
    expect(cache.lookup(name('web'))?.object?.metadata.resourceVersion).toBe('10');
    expect(cache.lookup(name('other'))).toEqual({ object: undefined });
  });

  it('tells its owner of a lookup of a kind no watch feeds, and not once the kind\'s watch has begun', () => {
    const asked: string[] = [];
    const cache = new ObjectCache({ onUnwatchedKind: (askedVersion, askedKind) => asked.push(`${askedVersion}|${askedKind}`) });
    expect(cache.lookup(name('web'))).toBeUndefined();
    expect(asked).toEqual(['apps/v1|Deployment']);
    cache.watchHandlers(apiVersion, kind).onProgress({ type: 'listing' });
    expect(cache.lookup(name('web'))).toBeUndefined();
    expect(asked).toHaveLength(1);
    // A kind that is no longer watched (forgotten) is asked for again.
    cache.forget(apiVersion, kind);
    cache.lookup(name('web'));
    expect(asked).toHaveLength(2);
  });

  it('heldVersion says the version it holds an object at, and nothing for a kind not fresh or an object it does not hold', () => {
    const cache = new ObjectCache();
    const feed = cache.watchHandlers(apiVersion, kind);
    feed.onProgress({ type: 'listing' });
    feed.onEvent('ADDED', deployment('web', '10'), true);
    expect(cache.heldVersion(name('web'))).toBeUndefined();
    feed.onProgress({ type: 'listed', resourceVersion: '12' });
    expect(cache.heldVersion(name('web'))).toBe('10');
    expect(cache.heldVersion(name('other'))).toBeUndefined();
    feed.onEvent('MODIFIED', deployment('web', '14', 3), false);
    expect(cache.heldVersion(name('web'))).toBe('14');
    feed.onProgress({ type: 'interrupted' });
    expect(cache.heldVersion(name('web'))).toBeUndefined();
  });

  it('ignores an event older than what it holds, and a late event after a deletion', () => {
    const cache = new ObjectCache();
    listed(cache, '10', [deployment('web', '10')]);
    const feed = cache.watchHandlers(apiVersion, kind);
    feed.onEvent('MODIFIED', deployment('web', '14', 3), false);
    feed.onEvent('MODIFIED', deployment('web', '12', 2), false);
    expect(cache.lookup(name('web'))?.object?.spec).toEqual({ replicas: 3 });
    feed.onEvent('DELETED', deployment('web', '15', 3), false);
    feed.onEvent('MODIFIED', deployment('web', '14', 3), false);
    expect(cache.lookup(name('web'))).toEqual({ object: undefined });
    // A newer object of the same name (recreated) is taken.
    feed.onEvent('ADDED', deployment('web', '20', 1), false);
    expect(cache.lookup(name('web'))?.object?.metadata.resourceVersion).toBe('20');
    expect(cache.stats().objects).toBe(1);
  });

  it('answers only at least the version the caller last wrote, by object or by what the watch has shown', () => {
    const cache = new ObjectCache();
    listed(cache, '10', [deployment('web', '8')]);
    const feed = cache.watchHandlers(apiVersion, kind);
    // The caller's own write left version 11; the cache has not seen it yet.
    expect(cache.lookup(name('web'), '11')).toBeUndefined();
    expect(cache.lookup(name('web'), '8')?.object?.metadata.resourceVersion).toBe('8');
    // Absent: believed only once the watch has shown the version the caller knows of.
    expect(cache.lookup(name('gone'), '11')).toBeUndefined();
    feed.onProgress({ type: 'bookmark', resourceVersion: '11' });
    expect(cache.lookup(name('gone'), '11')).toEqual({ object: undefined });
    // An incomparable version is never trusted.
    expect(cache.lookup(name('web'), 'abc')).toBeUndefined();
  });

  it('answers nothing while the stream is broken, and again once it resumes', () => {
    const cache = new ObjectCache();
    listed(cache, '10', [deployment('web', '10')]);
    const feed = cache.watchHandlers(apiVersion, kind);
    feed.onProgress({ type: 'interrupted' });
    expect(cache.lookup(name('web'))).toBeUndefined();
    feed.onProgress({ type: 'streaming' });
    expect(cache.lookup(name('web'))?.object).toBeDefined();
  });

  it('a 410 Gone relist replaces the store: objects deleted meanwhile are gone, and it answers nothing until the list is done', () => {
    const cache = new ObjectCache();
    listed(cache, '10', [deployment('web', '10'), deployment('api', '9')]);
    const feed = cache.watchHandlers(apiVersion, kind);
    feed.onEvent('DELETED', deployment('web', '11'), false);
    feed.onProgress({ type: 'interrupted' });
    feed.onProgress({ type: 'listing' });
    feed.onEvent('ADDED', deployment('web', '30'), true);
    expect(cache.lookup(name('api'))).toBeUndefined();
    feed.onProgress({ type: 'listed', resourceVersion: '31' });
    feed.onProgress({ type: 'streaming' });
    // The tombstone of the old deletion does not hide the object listed after it.
    expect(cache.lookup(name('web'))?.object?.metadata.resourceVersion).toBe('30');
    expect(cache.lookup(name('api'))).toEqual({ object: undefined });
    expect(cache.stats()).toEqual({ kinds: 1, fresh: 1, objects: 1 });
  });

  it('holds its own copy: a change to the watched object after the event, or to an answer, never reaches the store', () => {
    const cache = new ObjectCache();
    const watched = deployment('web', '10', 2);
    listed(cache, '10', [watched]);
    (watched.spec as { replicas: number }).replicas = 7;
    const answer = cache.lookup(name('web'))?.object;
    expect(answer?.spec).toEqual({ replicas: 2 });
    (answer!.spec as { replicas: number }).replicas = 9;
    expect(cache.lookup(name('web'))?.object).toEqual({ ...deployment('web', '10', 2) });
  });

  it('never holds a Secret', () => {
    const cache = new ObjectCache();
    const feed = cache.watchHandlers('v1', 'Secret');
    feed.onProgress({ type: 'listing' });
    feed.onEvent('ADDED', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'shop', resourceVersion: '5' }, data: { token: 'c2VjcmV0' } }, true);
    feed.onProgress({ type: 'listed', resourceVersion: '5' });
    expect(cache.lookup({ apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'token' })).toBeUndefined();
    expect(cache.stats().objects).toBe(0);
  });

  it('is bounded: the kind that takes it past its bound is dropped and read live', () => {
    const overflowed: string[] = [];
    const cache = new ObjectCache({ maxObjects: 2, onOverflow: (overflowing) => overflowed.push(overflowing) });
    listed(cache, '10', [deployment('a', '1'), deployment('b', '2')]);
    cache.watchHandlers(apiVersion, kind).onEvent('ADDED', deployment('c', '11'), false);
    expect(overflowed).toEqual([kind]);
    expect(cache.lookup(name('a'))).toBeUndefined();
    expect(cache.stats().objects).toBe(0);
  });
});

describe('compareResourceVersions', () => {
  it('orders decimal versions by length, then as text; anything else is incomparable', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(compareResourceVersions('100', '99')).toBeGreaterThan(0);
    expect(compareResourceVersions('42', '42')).toBe(0);
    expect(compareResourceVersions('042', '42')).toBeUndefined();
    expect(compareResourceVersions('a1', '1')).toBeUndefined();
    expect(compareResourceVersions(undefined, '1')).toBeUndefined();
  });
});
