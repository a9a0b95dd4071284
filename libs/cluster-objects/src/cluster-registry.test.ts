import { describe, expect, it } from 'vitest';
import { ClusterRegistry, type ClusterChange } from './cluster-registry';

describe('ClusterRegistry', () => {
  it('starts with the config-file clusters and tells each later change after it is in force', () => {
    const registry = new ClusterRegistry([{ name: 'east', labels: { env: 'prod' } }]);
    const heard: [ClusterChange['type'], string[]][] = [];
    registry.onChange((change) => heard.push([change.type, registry.names.slice()]));
    registry.put({ name: 'edge', labels: { env: 'dev' }, origin: 'object' });
    registry.put({ name: 'edge', labels: { env: 'prod' }, origin: 'object' });
    registry.remove('edge');
    expect(heard).toEqual([['added', ['east', 'edge']], ['relabelled', ['east', 'edge']], ['removed', ['east']]]);
    expect(registry.list()).toEqual([{ name: 'east', labels: { env: 'prod' }, origin: 'config' }]);
  });

  it('keeps targets and names live: a reference taken before a change sees it', () => {
    const registry = new ClusterRegistry([{ name: 'east', labels: {} }]);
    const { targets, names } = registry;
    registry.put({ name: 'edge', labels: { env: 'dev' }, origin: 'object' });
    registry.put({ name: 'edge', labels: { env: 'prod' }, origin: 'object' });
    expect(targets).toEqual([{ name: 'east', labels: {} }, { name: 'edge', labels: { env: 'prod' } }]);
    registry.remove('east');
    expect(names).toEqual(['edge']);
    expect(registry.labelsOf('edge')).toEqual({ env: 'prod' });
    expect(registry.labelsOf('east')).toBeUndefined();
  });

  it('keeps telling the other listeners when one throws, and stops telling one that unsubscribed', () => {
    const registry = new ClusterRegistry();
    const heard: string[] = [];
    registry.onChange(() => { throw new Error('boom'); });
    const stop = registry.onChange((change) => heard.push(change.cluster.name));
    registry.put({ name: 'a', labels: {}, origin: 'object' });
    stop();
    registry.put({ name: 'b', labels: {}, origin: 'object' });
    expect(heard).toEqual(['a']);
  });
});
