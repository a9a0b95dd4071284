// ACL helpers for tests on a Redis Cluster, whose ACL users and ACL LOG live on each node.
import { Redis } from 'ioredis';
import type { TestRedisCluster } from '@tidemark/testing';

/** eachNode runs a command on every node of the Redis Cluster: ACL users are per node. */
export async function eachNode<T>(redisCluster: TestRedisCluster, run: (node: Redis) => Promise<T>): Promise<T[]> {
  return Promise.all(redisCluster.nodes.map(async (address) => {
    const node = new Redis({ host: address.host, port: address.port, lazyConnect: true });
    try {
      await node.connect();
      return await run(node);
    } finally {
      node.disconnect();
    }
  }));
}

/** deniedFor lists the ACL LOG entries of every node that name the user (what Redis refused it). */
export async function deniedFor(redisCluster: TestRedisCluster, name: string): Promise<string[]> {
  const logs = await eachNode(redisCluster, async (node) => (await node.call('ACL', 'LOG')) as unknown[][]);
  return logs.flat().map((entry) => Object.fromEntries(Array.from({ length: entry.length / 2 }, (_, index) => [String(entry[2 * index]), entry[2 * index + 1]])) as Record<string, unknown>)
    .filter((entry) => entry.username === name).map((entry) => `${String(entry.reason)} ${String(entry.object)}`);
}
