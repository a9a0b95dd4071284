import { describe, expect, it } from 'vitest';
import { ClusterRegistry } from '@tidemark/cluster-objects';
import { createLogger } from './logger';
import { clusterValuesOf, FleetCapabilities, followFleet, type RenderFleet } from './render-fleet';

describe('followFleet', () => {
  it('renders for the clusters there are now: a Cluster object added or relabelled, with the config variables kept', async () => {
    const registry = new ClusterRegistry([{ name: 'mgmt', labels: { region: 'eu' } }]);
    const variables = new Map([['mgmt', { host: 'eu.example.com' }]]);
    const fleet: RenderFleet = { clusters: clusterValuesOf(registry, variables), capabilities: new FleetCapabilities(() => undefined) };
    const shared = fleet.clusters;
    const polled: string[] = [];
    const stop = followFleet(fleet, { registry, variables, sources: () => ['apps', 'web'], poller: { trigger: async (source: string) => polled.push(source) > 0 }, log: createLogger('silent') });
    expect(fleet.capabilities.generation).toBe(0);
    registry.put({ name: 'late', labels: { region: 'ap' }, origin: 'object' });
    // The same array: each source's rendering shares it.
    expect(fleet.clusters).toBe(shared);
    expect(shared).toEqual([{ name: 'mgmt', labels: { region: 'eu' }, variables: { host: 'eu.example.com' } }, { name: 'late', labels: { region: 'ap' }, variables: {} }]);
    expect(fleet.capabilities.generation).toBe(1);
    expect(polled).toEqual(['apps', 'web']);
    registry.put({ name: 'late', labels: { region: 'sa' }, origin: 'object' });
    expect(shared[1]).toEqual({ name: 'late', labels: { region: 'sa' }, variables: {} });
    registry.remove('late');
    expect(shared.map((cluster) => cluster.name)).toEqual(['mgmt']);
    expect(fleet.capabilities.generation).toBe(3);
    stop();
    registry.put({ name: 'later', labels: {}, origin: 'object' });
    expect(fleet.capabilities.generation).toBe(3);
  });
});
