import { describe, expect, it } from 'vitest';
import { clusterFreezeFact } from './cluster-freeze-facts';

const freeze = { cluster: 'prod', by: 'alice', reason: 'incident 42', since: '2026-12-06T08:00:00.000Z' };
const now = new Date('2026-12-06T09:00:00.000Z');

describe('clusterFreezeFact', () => {
  it('is news when a cluster is frozen, naming who, since and why', () => {
    expect(clusterFreezeFact('prod', freeze, now).eventFor(undefined)).toMatchObject({
      reason: 'ClusterFrozen', severity: 'error', cluster: 'prod', message: 'Cluster prod is frozen by alice since 2026-12-06T08:00:00.000Z: incident 42. Nothing is applied or pruned there until it is unfrozen.',
    });
    expect(clusterFreezeFact('prod', freeze, now).eventFor('Frozen')).toBeUndefined();
  });

  it('is news when the freeze is lifted, and not for a cluster never frozen', () => {
    expect(clusterFreezeFact('prod', undefined, now).eventFor('Frozen')).toMatchObject({ reason: 'ClusterUnfrozen', severity: 'info' });
    expect(clusterFreezeFact('prod', undefined, now).eventFor(undefined)).toBeUndefined();
    expect(clusterFreezeFact('prod', undefined, now).eventFor('Open')).toBeUndefined();
  });
});
