// Redis Cluster and Sentinel for real: Debian's redis-server started by the test as a 3-master
// cluster and as a primary + replica + sentinel. Queues, workers, the status store and leases
// run on both; on the cluster every key carries a hash tag (each target cluster's queue its own,
// the status store and leases the deployment's). On a cluster with replicas (six processes) and on
// the sentinel set the primary is killed mid-run and every job still finishes, once per revision. Both refuse
// anyone but one ACL user (the default user is off), and the sentinel has a password of its own.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis, type Cluster } from 'ioredis';
import { RedisLease, type ObjectStatus, type RedisClient } from '@tidemark/contracts';
import { closeRedis, clusterQueuePrefix, openRedisClient, ReconcileQueues, ReconcileWorkers, redisConnectionFor, redisPrefix, type RedisEndpoint } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { startRedisCluster, startRedisSentinel, type RedisAuth, type TestRedisCluster, type TestRedisSentinel } from '@tidemark/testing';
import { jobFor, waitFor } from './helpers';
import { queueIdle } from './reconciler-apps';

const login: RedisAuth = { username: 'tidemark', password: randomUUID(), sentinelPassword: randomUUID() };
// Each cluster its own password: a client a suite left behind can never log in to a later suite's cluster on a reused port.
const replicaLogin: RedisAuth = { username: 'tidemark', password: randomUUID() };
const failoverLogin: RedisAuth = { username: 'tidemark', password: randomUUID() };
const slowFailoverLogin: RedisAuth = { username: 'tidemark', password: randomUUID() };

/** refused says whether a client that logs in with `auth` (or not at all) is turned away. */
async function refused(endpoint: RedisEndpoint): Promise<string> {
  const client = openRedisClient(endpoint, { maxRetriesPerRequest: 0, retryStrategy: () => null, sentinelRetryStrategy: () => null });
  client.on('error', () => undefined);
  if ('cluster' in endpoint) (client as Cluster).options.clusterRetryStrategy = () => null;
  try {
    await client.set(`{probe}-${randomUUID()}`, '1');
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.disconnect();
  }
}

/** refusesConnections says whether nothing listens on a loopback port any more (a killed node). */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

/** keysOn lists the keys holding `prefix` on every primary of a Redis Cluster. */
async function keysOn(client: Cluster, prefix: string): Promise<string[]> {
  return (await Promise.all(client.nodes('master').map((node) => node.keys(`*${prefix}*`)))).flat();
}

function record(cluster: string, objectKey: string): ObjectStatus {
  return { cluster, objectKey, source: 'repo', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: objectKey, conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}

/** runJobs enqueues `count` jobs on a topology and counts how often each (object, revision) ran. */
async function queuesOn(endpoint: RedisEndpoint, prefix: string, hashTag: boolean, clusters: string[] = ['east']) {
  // The connections given are the queue classes' to duplicate, never theirs to close: closed here with the run.
  const connections = [redisConnectionFor(endpoint), redisConnectionFor(endpoint)];
  const queues = new ReconcileQueues({ connection: connections[0]!, prefix, hashTag, clusters });
  const workers = new ReconcileWorkers({ connection: connections[1]!, prefix, hashTag, clusters, onError: () => undefined });
  const runs = new Map<string, number>();
  await queues.start();
  await workers.start(async (job) => {
    const id = `${job.objectKey}@${job.revision}`;
    runs.set(id, (runs.get(id) ?? 0) + 1);
    return { kind: 'done' };
  });
  const closeConnections = () => Promise.all(connections.map((connection) => (typeof connection === 'object' && 'disconnect' in connection ? closeRedis(connection) : undefined)));
  return { queues, workers, runs, close: async () => { await workers.close(); await queues.close(); await closeConnections(); } };
}

describe('on a Redis Cluster (3 masters)', () => {
  let cluster: TestRedisCluster;
  let endpoint: RedisEndpoint;
  let client: RedisClient;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, auth: login });
    endpoint = { cluster: { nodes: cluster.nodes, auth: { username: login.username, password: login.password } } };
    client = openRedisClient(endpoint);
    client.on('error', () => undefined);
  });
  afterAll(async () => {
    if (client) await closeRedis(client);
    await cluster?.stop();
  });

  it('runs queues, the status store and leases with every key in its hash tag\'s slot: the target cluster\'s or the deployment\'s', async () => {
    const prefix = `tc-${randomUUID().slice(0, 6)}`;
    const tagged = redisPrefix({ prefix, hashTag: true });
    const store = new StatusStore({ redis: client, prefix: tagged });
    const run = await queuesOn(endpoint, prefix, true);
    try {
      for (let index = 0; index < 20; index += 1) await run.queues.enqueue(jobFor('east', `core/ConfigMap/a/c${index}`, 1));
      await waitFor(() => run.runs.size === 20, 60_000, 'twenty jobs to run on the cluster');
      await store.record('east', 'core/ConfigMap/a/c0', record('east', 'core/ConfigMap/a/c0'), { revision: 'r1', startedAt: new Date().toISOString(), durationMs: 1, result: 'succeeded' });
      expect((await store.get('east', 'core/ConfigMap/a/c0'))?.name).toBe('core/ConfigMap/a/c0');
      const lease = new RedisLease(client, store.keys.watchLease('east'), 'me', 5_000);
      expect(await lease.acquire()).toBe(true);
      await lease.release();
      const slot = await (client as Cluster).cluster('KEYSLOT', tagged);
      const queueSlot = await (client as Cluster).cluster('KEYSLOT', clusterQueuePrefix({ prefix, hashTag: true }, 'east'));
      const keys = await keysOn(client as Cluster, prefix);
      const queueKeys = keys.filter((key) => key.startsWith(`{${prefix}.east}:reconcile.east:`));
      expect(queueKeys.length).toBeGreaterThan(3);
      expect(keys.length).toBeGreaterThan(queueKeys.length);
      // The target cluster's own records (status, history, lease) share its queue's tag; the rest the deployment's.
      expect(keys).toContain(store.keys.objectStatus('east'));
      for (const key of keys) expect(await (client as Cluster).cluster('KEYSLOT', key), key).toBe(key.startsWith(`{${prefix}.east}:`) ? queueSlot : slot);
    } finally {
      await run.close();
    }
  });

  it('puts each target cluster\'s queue in a slot of its own, and still runs every job once', async () => {
    const prefix = `tq-${randomUUID().slice(0, 6)}`;
    const targets = ['east', 'west'];
    const slots = await Promise.all(targets.map((target) => (client as Cluster).cluster('KEYSLOT', clusterQueuePrefix({ prefix, hashTag: true }, target))));
    // Two tags share a slot once in 16,384 random prefixes; the check below would then prove nothing.
    expect(slots[0]).not.toBe(slots[1]);
    const run = await queuesOn(endpoint, prefix, true, targets);
    try {
      for (const target of targets) {
        for (let index = 0; index < 10; index += 1) await run.queues.enqueue(jobFor(target, `core/ConfigMap/${target}/c${index}`, 1));
      }
      await waitFor(() => run.runs.size === 20, 60_000, 'ten jobs per target cluster to run');
      expect([...run.runs.values()].every((count) => count === 1)).toBe(true);
      const keys = await keysOn(client as Cluster, prefix);
      for (const [index, target] of targets.entries()) {
        const own = keys.filter((key) => key.startsWith(`{${prefix}.${target}}:reconcile.${target}:`));
        expect(own.length, target).toBeGreaterThan(2);
        for (const key of own) expect(await (client as Cluster).cluster('KEYSLOT', key), key).toBe(slots[index]);
      }
      expect(keys.every((key) => targets.some((target) => key.startsWith(`{${prefix}.${target}}:reconcile.${target}:`))), 'no queue key outside its cluster\'s tag').toBe(true);
    } finally {
      await run.close();
    }
  });

  it('turns away a client without the ACL user or with a wrong password', async () => {
    // ioredis says the nodes are unavailable: each answered the slot query with NOAUTH / WRONGPASS.
    expect(await refused({ cluster: { nodes: cluster.nodes } })).toMatch(/None of startup nodes is available/);
    expect(await refused({ cluster: { nodes: cluster.nodes, auth: { username: login.username, password: 'wrong' } } })).toMatch(/None of startup nodes is available/);
  });

  it('refuses the status store transaction across slots without the hash tag (why the tag exists)', async () => {
    const store = new StatusStore({ redis: client, prefix: `untagged-${randomUUID().slice(0, 6)}` });
    await expect(store.record('east', 'core/ConfigMap/a/x', record('east', 'core/ConfigMap/a/x'), { revision: 'r1', startedAt: new Date().toISOString(), durationMs: 1, result: 'succeeded' })).rejects.toThrow(/CROSSSLOT|slot/i);
  });
});

describe('on a Redis Cluster with a replica per primary (six redis-server processes)', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, auth: replicaLogin });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps running when the primary of the queue\'s slot is killed: every job finishes, each (object, revision) once', async () => {
    const endpoint: RedisEndpoint = { cluster: { nodes: cluster.nodes, auth: { username: replicaLogin.username, password: replicaLogin.password } } };
    const prefix = `tf-${randomUUID().slice(0, 6)}`;
    const client = openRedisClient(endpoint);
    client.on('error', () => undefined);
    const store = new StatusStore({ redis: client, prefix: redisPrefix({ prefix, hashTag: true }) });
    const run = await queuesOn(endpoint, prefix, true);
    try {
      for (let index = 0; index < 20; index += 1) await run.queues.enqueue(jobFor('east', `core/ConfigMap/a/c${index}`, 1));
      await waitFor(() => run.runs.size === 20, 60_000, 'the first twenty jobs to run');
      await cluster.killPrimaryOf(clusterQueuePrefix({ prefix, hashTag: true }, 'east'));
      // As on Sentinel: an enqueue refused while the client finds the new primary is asked again, as the poller would.
      for (let index = 20; index < 40; index += 1) {
        const job = jobFor('east', `core/ConfigMap/a/c${index}`, 1);
        await waitFor(() => run.queues.enqueue(job).then(() => true, () => false), 60_000, `job ${index} to be enqueued after the failover`);
      }
      await waitFor(() => run.runs.size === 40, 90_000, 'forty jobs to run across the failover');
      await waitFor(() => store.record('east', 'core/ConfigMap/a/c0', record('east', 'core/ConfigMap/a/c0'), { revision: 'r1', startedAt: new Date().toISOString(), durationMs: 1, result: 'succeeded' }).then(() => true, () => false), 60_000, 'the status store to write after the failover');
      expect((await store.get('east', 'core/ConfigMap/a/c0'))?.name).toBe('core/ConfigMap/a/c0');
      expect([...run.runs.values()].every((count) => count === 1)).toBe(true);
    } finally {
      await run.close();
      await closeRedis(client);
    }
  });
});

describe('on a Redis Cluster whose replica takes over only after the jobs\' locks ran out (six redis-server processes)', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, auth: slowFailoverLogin });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('finishes the jobs that were running, each once, and takes the later ones: none left in the active list without a lock', async () => {
    // Ten jobs (the queue's whole concurrency) run when the primary dies, and their handlers return
    // while no replica may take over (15 s), longer than the workers' 10 s locks. Their completions
    // reach the new primary after the locks ran out: BullMQ refused them ("Missing lock") and left
    // the ten in the active list, the queue maxed, until the stalled check ran each a second time.
    const endpoint: RedisEndpoint = { cluster: { nodes: cluster.nodes, auth: { username: slowFailoverLogin.username, password: slowFailoverLogin.password } } };
    const prefix = `tl-${randomUUID().slice(0, 6)}`;
    const tag = clusterQueuePrefix({ prefix, hashTag: true }, 'east');
    const connections = [redisConnectionFor(endpoint), redisConnectionFor(endpoint)];
    const queues = new ReconcileQueues({ connection: connections[0]!, prefix, hashTag: true, clusters: ['east'] });
    const workers = new ReconcileWorkers({ connection: connections[1]!, prefix, hashTag: true, clusters: ['east'], lockDurationMs: 10_000, onError: () => undefined });
    const runs = new Map<string, number>();
    let started = 0;
    let release: () => void = () => undefined;
    const primaryDown = new Promise<void>((resolve) => (release = resolve));
    try {
      await queues.start();
      await workers.start(async (job) => {
        started += 1;
        if (job.objectKey.includes('/early')) await primaryDown;
        const id = `${job.objectKey}@${job.revision}`;
        runs.set(id, (runs.get(id) ?? 0) + 1);
        return { kind: 'done' };
      });
      for (let index = 0; index < 10; index += 1) await queues.enqueue(jobFor('east', `core/ConfigMap/a/early${index}`, 1));
      await waitFor(() => started === 10, 60_000, 'ten jobs to start');
      const victim = (await cluster.primaryPortOf(tag))!;
      const killing = cluster.killPrimaryOf(tag, { promotionDelayMs: 15_000 });
      await waitFor(() => refusesConnections(victim), 60_000, 'the primary to be killed');
      release();
      await killing;
      for (let index = 0; index < 20; index += 1) {
        const job = jobFor('east', `core/ConfigMap/a/later${index}`, 1);
        await waitFor(() => queues.enqueue(job).then(() => true, () => false), 60_000, `job ${index} to be enqueued after the failover`);
      }
      await waitFor(() => runs.size === 30, 90_000, 'thirty jobs to run across the failover');
      // A job left in the active list keeps the queue from idling until the stalled check hands it back to run again.
      await waitFor(() => queueIdle(queues).catch(() => false), 90_000, 'the queue to have nothing active or waiting');
      expect([...runs.entries()].filter(([, count]) => count !== 1)).toEqual([]);
    } finally {
      release();
      await workers.close();
      await queues.close();
      await Promise.all(connections.map((connection) => (typeof connection === 'object' && 'disconnect' in connection ? closeRedis(connection) : undefined)));
    }
  });
});

describe('a Redis Cluster client while a primary fails over (six redis-server processes)', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, auth: failoverLogin });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('answers every write sent while the slot has no primary once the replica takes over, none refused', async () => {
    // A BullMQ worker whose job completion was refused this way marked the job failed.
    const client = openRedisClient({ cluster: { nodes: cluster.nodes, auth: { username: failoverLogin.username, password: failoverLogin.password } } });
    client.on('error', () => undefined);
    const key = `{fo-${randomUUID().slice(0, 6)}}:counter`;
    const refused: string[] = [];
    let written = 0;
    let writing = true;
    try {
      await client.set(key, '0');
      const writes = (async () => {
        while (writing) {
          await client.incr(key).then(() => (written += 1), (error: Error) => refused.push(error.message));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await waitFor(() => written >= 5, 30_000, 'writes before the kill');
      await cluster.killPrimaryOf(key);
      const atTakeover = written;
      await waitFor(() => written >= atTakeover + 5, 60_000, 'writes after the takeover');
      writing = false;
      await writes;
      expect(refused).toEqual([]);
    } finally {
      writing = false;
      await closeRedis(client);
    }
  });
});

describe('on a Sentinel group (primary, replica, three sentinels)', () => {
  let sentinel: TestRedisSentinel;
  beforeAll(async () => {
    sentinel = await startRedisSentinel('tidemark', login);
  });
  afterAll(async () => {
    await sentinel?.stop();
  });

  it('turns away a client without the sentinel password, or without the data nodes\' login', async () => {
    const nodes = sentinel.sentinels;
    expect(await refused({ sentinel: { name: sentinel.name, nodes, auth: { username: login.username, password: login.password } } })).toMatch(/sentinels are unreachable.*NOAUTH/);
    expect(await refused({ sentinel: { name: sentinel.name, nodes, sentinelAuth: { password: login.sentinelPassword! } } })).toMatch(/NOAUTH/);
  });

  it('keeps running through a failover: every job finishes, each (object, revision) once', async () => {
    const endpoint: RedisEndpoint = { sentinel: { name: sentinel.name, nodes: sentinel.sentinels, auth: { username: login.username, password: login.password }, sentinelAuth: { password: login.sentinelPassword! } } };
    const prefix = `ts-${randomUUID().slice(0, 6)}`;
    const client = openRedisClient(endpoint);
    client.on('error', () => undefined);
    const store = new StatusStore({ redis: client, prefix });
    const run = await queuesOn(endpoint, prefix, false);
    try {
      for (let index = 0; index < 20; index += 1) await run.queues.enqueue(jobFor('east', `core/ConfigMap/a/c${index}`, 1));
      await waitFor(() => run.runs.size === 20, 60_000, 'the first twenty jobs to run');
      await sentinel.killPrimary();
      // A producer reports an outage instead of hanging (the poller enqueues again at its next poll), so
      // the test enqueues once the sentinel has promoted the replica; the workers ride it out on their own.
      const replica = new Redis({ host: '127.0.0.1', port: sentinel.replicaPort, username: login.username, password: login.password });
      replica.on('error', () => undefined);
      await waitFor(async () => (await replica.role())[0] === 'master', 60_000, 'the sentinel to promote the replica');
      replica.disconnect();
      // The producer's connection may still be finding the new primary: it refuses, and is asked again as the poller would.
      for (let index = 20; index < 40; index += 1) {
        const job = jobFor('east', `core/ConfigMap/a/c${index}`, 1);
        await waitFor(() => run.queues.enqueue(job).then(() => true, () => false), 60_000, `job ${index} to be enqueued after the failover`);
      }
      await waitFor(() => run.runs.size === 40, 90_000, 'forty jobs to run across the failover');
      await store.record('east', 'core/ConfigMap/a/c0', record('east', 'core/ConfigMap/a/c0'), { revision: 'r1', startedAt: new Date().toISOString(), durationMs: 1, result: 'succeeded' });
      expect((await store.get('east', 'core/ConfigMap/a/c0'))?.name).toBe('core/ConfigMap/a/c0');
      expect((await (client as Redis).role())[0]).toBe('master');
      expect([...run.runs.values()].every((count) => count === 1)).toBe(true);
    } finally {
      await run.close();
      await closeRedis(client);
    }
  });
});
