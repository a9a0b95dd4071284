// The dashboard's status cache on a real Redis Cluster (three primaries, a replica each) while the
// node its pub/sub subscriber is connected to is SIGKILLed and status records keep being written.
// Messages published while the subscriber reconnects are lost for good; the cache must notice
// and reload, or it shows stale states until the dashboard restarts. ioredis's own cluster
// subscriber moved to another node without a word, and the cache kept what it had.
import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { closeRedis, openRedisClient, openRedisSubscriber, redisPrefix, type RedisEndpoint } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { startRedisCluster, type RedisAuth, type RedisHostPort, type TestRedisCluster } from '@tidemark/testing';
import { StatusCache } from '../../apps/dashboard/src/view/status-cache';
import { waitFor } from '../queue/helpers';

const login: RedisAuth = { username: 'tidemark', password: randomUUID() };

function record(index: number): ObjectStatus {
  return { cluster: 'east', objectKey: `core/ConfigMap/a/c${index}`, source: 'repo', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: `c${index}`, conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}

describe('the status cache on a Redis Cluster when its subscriber\'s node dies', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, auth: login });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('reloads once it receives again: every record written across the kill is in the cache', async () => {
    // The subscriber on a replica: killing it stops no write, so records are announced while it reconnects.
    // Replicas attach a moment after the cluster says ok.
    let replicaPort = 0;
    await waitFor(async () => (replicaPort = Number(/:(\d+)@\S+ \S*slave/.exec(await cluster.command(cluster.nodes[0]!.port, 'cluster', 'nodes'))?.[1])) > 0, 30_000, 'a replica to attach');
    const replica = cluster.nodes.find((node) => node.port === replicaPort);
    const endpoint = (nodes: readonly RedisHostPort[]): RedisEndpoint => ({ cluster: { nodes, auth: { username: login.username, password: login.password } } });
    const prefix = redisPrefix({ prefix: `cache-${randomUUID().slice(0, 6)}`, hashTag: true });
    const writer = openRedisClient(endpoint(cluster.nodes));
    const reader = openRedisClient(endpoint(cluster.nodes), { lazyConnect: true });
    const subscriber = openRedisSubscriber(endpoint([replica!, ...cluster.nodes]), { lazyConnect: true }, reader as Cluster);
    for (const client of [writer, reader, subscriber]) client.on('error', () => undefined);
    const store = new StatusStore({ redis: writer, prefix });
    const cache = new StatusCache({ store: new StatusStore({ redis: reader, prefix }), subscriber });
    let writing = true;
    let written = 0;
    try {
      await Promise.all([reader.connect(), subscriber.connect()]);
      await cache.start();
      expect(await cluster.command(replicaPort, 'pubsub', 'numsub', store.channel), 'the subscriber listens on the replica').toMatch(/\n1\s*$/);
      const writes = (async () => {
        while (writing) {
          const status = record(written);
          await store.record('east', status.objectKey, status, { revision: 'r1', startedAt: status.updatedAt, durationMs: 1, result: 'succeeded' }).then(() => (written += 1), () => undefined);
        }
      })();
      await waitFor(() => written >= 20, 30_000, 'twenty records written before the kill');
      await cluster.killNode(replicaPort);
      const atKill = written;
      await waitFor(() => written >= atKill + 100, 60_000, 'a hundred records written after the kill');
      writing = false;
      await writes;
      await waitFor(() => cache.rows().length === written, 30_000, `the cache to hold every record written (${cache.rows().length} of ${written})`);
      // And it receives again: a record written now arrives by pub/sub.
      const late = record(written);
      await store.record('east', late.objectKey, late, { revision: 'r2', startedAt: late.updatedAt, durationMs: 1, result: 'succeeded' });
      await waitFor(() => cache.cellsOf(late.objectKey)?.get('east') !== undefined, 30_000, 'a record written after the recovery to reach the cache');
    } finally {
      writing = false;
      await cache.stop();
      await Promise.all([writer, reader, subscriber].map((client) => closeRedis(client)));
    }
  }, 180_000);
});
