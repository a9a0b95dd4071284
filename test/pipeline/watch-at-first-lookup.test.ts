// A fresh start's first runs read what they apply from the watch cache as soon as its kind has
// listed: the owned-object watches start a kind's watch at the cache's first lookup of it, not only
// once a status record names the kind. Before, a first sync's first 16 runs per kind (one per
// worker) each read the API server, as no record named the kind until a run had written one.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClusterConnection } from '@tidemark/cluster';
import { StatusStore } from '@tidemark/status-store';
import { startOwnedWatches, type OwnedWatches } from '@tidemark/watches';

const cluster = `first-lookup-${randomUUID().slice(0, 8)}`;
let redis: Redis;
let connection: ClusterConnection;
let watches: OwnedWatches;

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  connection = ClusterConnection.connect({ cluster, kubeconfig: inject('kubeconfig') });
  // A prefix of its own: no record names any kind on this cluster.
  const statusStore = new StatusStore({ redis, prefix: `test-${cluster}` });
  watches = startOwnedWatches({ clusters: new Map([[cluster, connection]]), statusStore, redis, refreshMs: 500, queues: { enqueue: async () => undefined } });
  await watches.ready();
});
afterAll(async () => {
  await watches?.stop();
  connection?.close();
  redis?.disconnect();
});

/** answered asks `lookup` until it answers, for up to 20 s, and returns its last answer. */
async function answered<T>(lookup: () => T | undefined): Promise<T | undefined> {
  const deadline = Date.now() + 20_000;
  let answer = lookup();
  while (answer === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    answer = lookup();
  }
  return answer;
}

describe('the watch cache on a cluster no record names a kind of', () => {
  it('starts watching a kind at its first lookup, and answers for it once the watch has listed', async () => {
    const cache = watches.cacheFor(cluster)!;
    const target = { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: `absent-${cluster}` };
    // Nothing watches Namespaces yet: the first lookup cannot answer.
    expect(cache.lookup(target)).toBeUndefined();
    // The lookup started the kind's watch: the cache answers once it has listed (on the old code, never).
    expect(await answered(() => cache.lookup(target))).toEqual({ object: undefined });
    expect(cache.lookup({ ...target, name: 'default' })?.object?.metadata.name).toBe('default');
  });

  it('starts nothing once stopped', async () => {
    const stopped = startOwnedWatches({ clusters: new Map([[cluster, connection]]), statusStore: new StatusStore({ redis, prefix: `test-${cluster}-stopped` }), redis, queues: { enqueue: async () => undefined } });
    const cache = stopped.cacheFor(cluster)!;
    await stopped.stop();
    expect(cache.lookup({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'any' })).toBeUndefined();
    expect(cache.stats().kinds).toBe(0);
  });
});
