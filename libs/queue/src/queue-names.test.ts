import { describe, expect, it } from 'vitest';
import { clusterQueuePrefix, objectStateKeys, queueNameFor, redisPrefix } from './queue-names';

describe('queue names', () => {
  it('names one queue per cluster', () => {
    expect(queueNameFor('prod-eu-1')).toBe('reconcile.prod-eu-1');
  });

  it('refuses cluster names that would break BullMQ keys', () => {
    for (const name of ['', 'a:b', '{x}', 'with space', '-lead', 'x'.repeat(64)]) {
      expect(() => queueNameFor(name)).toThrow(/cannot name a queue/);
    }
  });

  it('wraps the prefix in a hash tag for Redis Cluster', () => {
    expect(redisPrefix()).toBe('tidemark');
    expect(redisPrefix({ prefix: 'tm', hashTag: true })).toBe('{tm}');
    expect(() => redisPrefix({ prefix: '{tm}' })).toThrow(/hashTag/);
  });

  it('gives each cluster\'s queue a hash tag of its own on Redis Cluster, and the plain prefix elsewhere', () => {
    expect(clusterQueuePrefix({ prefix: 'tm', hashTag: true }, 'east')).toBe('{tm.east}');
    expect(clusterQueuePrefix({ prefix: 'tm', hashTag: true }, 'west')).toBe('{tm.west}');
    expect(clusterQueuePrefix({ prefix: 'tm' }, 'east')).toBe('tm');
    expect(clusterQueuePrefix({}, 'east')).toBe('tidemark');
    expect(() => clusterQueuePrefix({ prefix: 'tm', hashTag: true }, 'a:b')).toThrow(/cannot name a queue/);
  });

  it('keeps Tidemark keys under the queue key, so a hash tag covers them too', () => {
    const keys = objectStateKeys('{tm}', 'c1');
    for (const key of Object.values(keys)) expect(key.startsWith('{tm}:reconcile.c1:tm:')).toBe(true);
  });
});
