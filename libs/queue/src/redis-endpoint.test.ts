import { describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { openRedis } from './connection';
import { describeEndpoint, needsHashTag, parseRedisNode, redisConnectionFor } from './redis-endpoint';

describe('redis endpoints', () => {
  it('reads host:port, IPv6 in brackets too, and names the field when it cannot', () => {
    expect(parseRedisNode('redis-0.redis:26379', 'redis.sentinel.nodes[0]')).toEqual({ host: 'redis-0.redis', port: 26379 });
    expect(parseRedisNode('[::1]:7000', 'x')).toEqual({ host: '::1', port: 7000 });
    expect(() => parseRedisNode('redis-0', 'redis.cluster.nodes[1]')).toThrow(/redis\.cluster\.nodes\[1\]: "redis-0" is not host:port/);
    expect(() => parseRedisNode('a:70000', 'x')).toThrow(/not host:port/);
  });

  it('gives sentinel options, a lazy Cluster, or the URL, and a hash tag only for a cluster', () => {
    expect(redisConnectionFor({ sentinel: { name: 'main', nodes: [{ host: 'a', port: 26379 }] } })).toEqual({ sentinels: [{ host: 'a', port: 26379 }], name: 'main' });
    const cluster = redisConnectionFor({ cluster: { nodes: [{ host: 'a', port: 7000 }] } });
    expect(cluster).toBeInstanceOf(Cluster);
    expect((cluster as Cluster).status).toBe('wait');
    (cluster as Cluster).disconnect();
    expect(redisConnectionFor({ url: 'redis://x:6379' })).toBe('redis://x:6379');
    expect(needsHashTag({ cluster: { nodes: [] } })).toBe(true);
    expect(needsHashTag({ sentinel: { name: 'm', nodes: [] } })).toBe(false);
    expect(needsHashTag({ url: 'redis://127.0.0.1:6379', hashTag: true })).toBe(true);
    expect(needsHashTag({ sentinel: { name: 'm', nodes: [] }, hashTag: true })).toBe(true);
  });

  it('retries a cluster client\'s commands through a failover (20 s), but not the blocking connection BullMQ duplicates from it', () => {
    const connection = redisConnectionFor({ cluster: { nodes: [{ host: 'a', port: 7000 }] } }) as Cluster;
    const worker = openRedis(connection, 'worker') as Cluster;
    // BullMQ opens a worker's blocking connection as `connection.duplicate({ connectionName })`.
    const blocking = (worker.duplicate as (options: object) => Cluster)({ connectionName: 'bull:w' });
    try {
      for (const client of [connection, worker]) {
        expect(client.options).toMatchObject({ retryDelayOnFailover: 200, retryDelayOnClusterDown: 200, maxRedirections: 100 });
      }
      expect(worker.options.redisOptions?.maxRetriesPerRequest).toBeNull();
      expect(blocking.options).toMatchObject({ retryDelayOnFailover: 100, retryDelayOnClusterDown: 100, maxRedirections: 16 });
      expect(blocking.options.redisOptions?.maxRetriesPerRequest).toBeNull();
    } finally {
      for (const client of [connection, worker, blocking]) client.disconnect();
    }
  });

  it('never names a password', () => {
    expect(describeEndpoint({ url: 'redis://:hunter2@redis:6379/0' })).toBe('redis://redis:6379/0');
  });
});
