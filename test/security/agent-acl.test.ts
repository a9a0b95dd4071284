// An agent's Redis user, made from agentAclRule, on the rig's real redis-server: a BullMQ worker
// logged in as cluster A's agent takes and finishes A's jobs and writes A's status records, while
// Redis itself refuses it (NOPERM) everything else: B's keys, a job for B, a source record, and
// the commands that would read or wipe the whole server.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RecordKeys, type ObjectStatus } from '@tidemark/contracts';
import { agentAclRule, clusterQueuePrefix, ReconcileQueues, ReconcileWorkers, redisPrefix } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { agentAclCommand } from '../../apps/cli/src/commands/agent-acl';
import { jobFor, removeKeys, waitFor } from '../queue/helpers';

const id = randomUUID().slice(0, 8);
const naming = { prefix: `acl-${id}`, hashTag: true };
const user = `agent-a-${id}`;
const password = randomUUID();
const keys = new RecordKeys(redisPrefix(naming));
let admin: Redis;
let agent: Redis;
let agentUrl: string;

function statusOf(cluster: string, objectKey: string): ObjectStatus {
  return { cluster, objectKey, source: 'repo', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'one', lastAppliedRevision: 'r1', conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}

beforeAll(async () => {
  const url = new URL(inject('redisUrl'));
  admin = new Redis(url.toString());
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, ...agentAclRule('a', naming));
  url.username = user;
  url.password = password;
  agentUrl = url.toString();
  agent = new Redis(agentUrl, { maxRetriesPerRequest: 1 });
  // The hub's records the agent may only read.
  await admin.hset(keys.sourceStatus('apps'), 'revision', 'r1');
});

afterAll(async () => {
  agent?.disconnect();
  await admin.call('ACL', 'DELUSER', user);
  for (const prefix of [redisPrefix(naming), clusterQueuePrefix(naming, 'a'), clusterQueuePrefix(naming, 'b')]) await removeKeys(admin, prefix);
  admin.disconnect();
});

describe('an agent logged in with its ACL rule', () => {
  it('runs a BullMQ worker on its own queue: takes A\'s job, runs it and completes it', async () => {
    const hub = new ReconcileQueues({ connection: inject('redisUrl'), ...naming, clusters: ['a', 'b'] });
    const workers = new ReconcileWorkers({ connection: agentUrl, ...naming, clusters: ['a'], onError: () => undefined });
    const ran: string[] = [];
    try {
      await hub.start();
      await workers.start(async (job) => {
        ran.push(job.objectKey);
        return { kind: 'done' };
      });
      await hub.enqueue(jobFor('a', 'core/ConfigMap/apps/one', 1));
      await waitFor(async () => ran.length === 1 && (await hub.figures()).find((figure) => figure.cluster === 'a')?.depth.active === 0, 10_000, 'A\'s job to run as the agent');
      expect(ran).toEqual(['core/ConfigMap/apps/one']);
      const figure = (await hub.figures()).find((entry) => entry.cluster === 'a');
      expect([figure?.depth.failed, figure?.failingObjects]).toEqual([0, 0]);
    } finally {
      await workers.close();
      await hub.close();
    }
  });

  it('writes its own cluster\'s status records and history, and reads the sources\' records', async () => {
    const store = new StatusStore({ redis: agent, prefix: redisPrefix(naming), indexesClusters: false });
    await store.record('a', 'core/ConfigMap/apps/one', statusOf('a', 'core/ConfigMap/apps/one'), { revision: 'r1', result: 'succeeded', startedAt: new Date().toISOString(), durationMs: 1 });
    expect((await store.get('a', 'core/ConfigMap/apps/one'))?.lastAppliedRevision).toBe('r1');
    expect(await store.history('a', 'core/ConfigMap/apps/one')).toHaveLength(1);
    expect(await agent.hget(keys.sourceStatus('apps'), 'revision')).toBe('r1');
  });

  it('is refused by Redis another cluster\'s keys, read or written', async () => {
    await admin.hset(keys.objectStatus('b'), 'core/ConfigMap/apps/one', '{}');
    await expect(agent.hget(keys.objectStatus('b'), 'core/ConfigMap/apps/one')).rejects.toThrow(/NOPERM/);
    await expect(agent.hset(keys.objectStatus('b'), 'core/ConfigMap/apps/two', '{}')).rejects.toThrow(/NOPERM/);
    await expect(agent.lrange(keys.history('b', 'core/ConfigMap/apps/one'), 0, -1)).rejects.toThrow(/NOPERM/);
    await expect(agent.set(keys.clusterFreeze('b'), '{}')).rejects.toThrow(/NOPERM/);
    // A cluster whose name starts with A's is another cluster: its tag is not A's.
    await expect(agent.get(keys.clusterHealth('ab'))).rejects.toThrow(/NOPERM/);
  });

  it('is refused by Redis a job for another cluster', async () => {
    const queues = new ReconcileQueues({ connection: agentUrl, ...naming, clusters: ['b'] });
    try {
      await queues.start().catch(() => undefined);
      await expect(queues.enqueue(jobFor('b', 'core/ConfigMap/apps/one', 1))).rejects.toThrow(/NOPERM/);
    } finally {
      await queues.close().catch(() => undefined);
    }
    expect(await admin.exists(`${clusterQueuePrefix(naming, 'b')}:reconcile.b:id`)).toBe(0);
  });

  it('is refused by Redis a write to a shared record: a source, the schema, a session', async () => {
    await expect(agent.hset(keys.sourceStatus('apps'), 'revision', 'forged')).rejects.toThrow(/NOPERM/);
    await expect(agent.hset(keys.schema, 'version', '99')).rejects.toThrow(/NOPERM/);
    await expect(agent.set(keys.dashboardSession('x'), '{}')).rejects.toThrow(/NOPERM/);
    await expect(agent.sadd(keys.statusClusters, 'forged')).rejects.toThrow(/NOPERM/);
    expect(await admin.hget(keys.sourceStatus('apps'), 'revision')).toBe('r1');
  });

  it('is refused KEYS, SCAN, FLUSHALL, FLUSHDB, CONFIG and ACL', async () => {
    await expect(agent.keys('*')).rejects.toThrow(/NOPERM/);
    await expect(agent.scan('0')).rejects.toThrow(/NOPERM/);
    await expect(agent.flushall()).rejects.toThrow(/NOPERM/);
    await expect(agent.flushdb()).rejects.toThrow(/NOPERM/);
    await expect(agent.config('GET', 'requirepass')).rejects.toThrow(/NOPERM/);
    await expect(agent.call('ACL', 'LIST')).rejects.toThrow(/NOPERM/);
    await expect(agent.call('FUNCTION', 'FLUSH')).rejects.toThrow(/NOPERM/);
    await expect(agent.publish(`${keys.prefix}:poll-now`, 'apps')).rejects.toThrow(/NOPERM/);
  });

  it('is what `tidemark agent-acl` prints: its ACL SETUSER command, run as printed, makes such a user', async () => {
    let printed = '';
    await agentAclCommand({ format: 'table', colour: false, write: (text) => (printed += text) }, 'a', { prefix: naming.prefix, user: `${user}-cli` });
    const words = printed.trim().split(' ');
    expect(words.slice(0, 4)).toEqual(['ACL', 'SETUSER', `${user}-cli`, 'on']);
    await admin.call('ACL', ...words.slice(1));
    const viaCli = new Redis(inject('redisUrl'), { username: `${user}-cli`, password: words[4]!.slice(1), maxRetriesPerRequest: 1 });
    try {
      await viaCli.set(keys.clusterFreeze('a'), '{}');
      await expect(viaCli.get(keys.clusterFreeze('b'))).rejects.toThrow(/NOPERM/);
      await expect(viaCli.flushall()).rejects.toThrow(/NOPERM/);
    } finally {
      viaCli.disconnect();
      await admin.call('ACL', 'DELUSER', `${user}-cli`);
    }
  });
});
