// Redis lost while a cluster is served by an agent (issue 40 items 2 and 5): the hub holds no
// credential for the agent's cluster, so only the agent can rebuild that cluster's records from
// the owner labels. The hub and the agent run in this process (startReconciler twice, the agent
// with TIDEMARK_ROLE=agent, logged in as the ACL user agentAclRule makes, on every node of a
// Redis Cluster of the test's own: FLUSHALL is real). Ten ConfigMaps through the agent, both
// stopped, Redis wiped, objects removed from Git, both started: the agent rebuilds, the prunes go
// through the guards and the mass-prune hold, and Redis refuses the agent nothing on the way.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition, RecordKeys } from '@tidemark/contracts';
import { agentAclRule, redisPrefix } from '@tidemark/queue';
import { PruneHolds, RecordsLost, StatusStore } from '@tidemark/status-store';
import { kubectl, startGitServer, startRedisCluster, type GitServer, type TestRedisCluster, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { deniedFor, eachNode } from './cluster-acl';

const id = randomUUID().slice(0, 8);
const namespace = `agent-lost-${id}`;
const prefix = `alost-${id}`;
const naming = { prefix, hashTag: true };
const keys = new RecordKeys(redisPrefix(naming));
const cluster = 'edge';
const source = `lost-${id}`;
const user = `agent-edge-${id}`;
const password = randomUUID().replaceAll('-', '');
const names = Array.from({ length: 10 }, (_, index) => `cm-${index}`);
const key = (name: string) => `core/ConfigMap/${namespace}/${name}`;
let redisCluster: TestRedisCluster;
let admin: Cluster;
let store: StatusStore;
let kube: ClusterConnection;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let hub: RunningReconciler | undefined;
let agent: RunningReconciler | undefined;
const agentLog: string[] = [];

const live = (name: string) => getObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const uidOf = async (name: string) => (await live(name))?.metadata.uid;
const readiness = async (name: string) => {
  const ready = findCondition((await store.get(cluster, key(name)))?.conditions, 'Ready');
  return `${ready?.status} ${ready?.reason}: ${ready?.message}`;
};

async function start(): Promise<void> {
  // The hub first: it claims the schema (and marks the loss), which the agent may only read.
  hub = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'hub.yaml') }), createLogger('error'));
  const destination = { write: (line: string) => void agentLog.push(line) };
  agent = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'agent.yaml'), TIDEMARK_ROLE: 'agent', AGENT_REDIS_PASSWORD: password }), createLogger('warn', destination));
}

async function stop(): Promise<void> {
  await agent?.stop();
  agent = undefined;
  await hub?.stop();
  hub = undefined;
}

/** wipe is the Redis loss: every primary flushed (the ACL users, which are configuration, stay). */
async function wipe(): Promise<void> {
  await Promise.all(admin.nodes('master').map((node) => node.flushall()));
}

beforeAll(async () => {
  redisCluster = await startRedisCluster({ masters: 3 });
  admin = new Cluster(redisCluster.nodes);
  store = new StatusStore({ redis: admin, prefix: keys.prefix });
  kube = ClusterConnection.connect({ cluster, kubeconfig: inject('kubeconfig') });
  await eachNode(redisCluster, (node) => node.call('ACL', 'SETUSER', user, 'on', `>${password}`, ...agentAclRule(cluster, naming)));
  await eachNode(redisCluster, (node) => node.call('ACL', 'LOG', 'RESET'));
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
  git = await startGitServer();
  const url = await git.createRepository(`agent-lost-${id}`);
  repo = await git.workingCopy(`agent-lost-${id}`);
  for (const name of names) await repo.write(`${name}.yaml`, stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { name } }));
  await repo.commitAndPush('ten ConfigMaps');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-agent-lost-'));
  const nodes = redisCluster.nodes.map((node) => `${node.host}:${node.port}`);
  const common = {
    sources: [{ name: source, url, ref: { branch: 'main' }, intervalMs: 1_000 }],
    http: { port: 0, host: '127.0.0.1' },
    healthCheck: { intervalMs: 300, timeoutMs: 30_000, failureThreshold: 10 },
  };
  await writeFile(join(workDir, 'hub.yaml'), stringify({ ...common, redis: { cluster: { nodes }, prefix }, cacheDir: join(workDir, 'cache-hub'), clusters: [{ name: cluster, agent: true }] }));
  await writeFile(join(workDir, 'agent.yaml'), stringify({
    ...common, cacheDir: join(workDir, 'cache-agent'),
    redis: { cluster: { nodes, username: user, password: { env: 'AGENT_REDIS_PASSWORD' } }, prefix },
    clusters: [{ name: cluster, kubeconfig: inject('kubeconfigPath') }],
  }));
  await start();
}, 180_000);

afterAll(async () => {
  await stop();
  admin?.disconnect();
  kube?.close();
  await redisCluster?.stop();
  await git?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('after Redis lost the records of a cluster an agent serves', () => {
  it('the agent rebuilds them: what Git dropped is pruned, the rest keep their uids, the history says so', { timeout: 300_000 }, async () => {
    await expect.poll(async () => (await Promise.all(names.map(live))).every(Boolean), { timeout: 120_000, interval: 500 }).toBe(true);
    for (const name of names) await expect.poll(() => readiness(name), { timeout: 60_000 }).toMatch(/^True /);
    const uids = new Map(await Promise.all(names.map(async (name) => [name, await uidOf(name)] as const)));

    await stop();
    await wipe();
    for (const name of ['cm-0', 'cm-1', 'cm-2']) await repo.delete(`${name}.yaml`);
    await repo.commitAndPush('remove three while Redis is empty, the hub and the agent down');
    await start();

    await expect.poll(async () => (await Promise.all(['cm-0', 'cm-1', 'cm-2'].map(live))).some(Boolean), { timeout: 120_000, interval: 500 }).toBe(false);
    for (const name of names.slice(3)) expect(await uidOf(name), name).toBe(uids.get(name));
    // Rebuilt before the agent's first run of the source: every object had lost its record.
    // `refused` is left out: it counts label-only objects anywhere in the cluster, and the rig's API
    // server is shared with test/safety/redis-loss-rebuild, which labels a forged one.
    expect(await new RecordsLost(admin, keys).summary(source, cluster)).toMatchObject({ rebuilt: 10, truncated: false });
    await expect.poll(() => readiness('cm-5'), { timeout: 60_000 }).toMatch(/^True /);
    const rebuilt = (await store.history(cluster, key('cm-5'))).find((entry) => entry.stage === 'rebuild');
    expect(rebuilt?.message).toMatch(/^Rebuilt from cluster edge after Redis lost Tidemark's records: 1 live object carrying the tidemark\.dev\/owner-hash label/);
    // All of it within the agent's ACL: its own keys, and a read of the hub's loss mark.
    expect(await deniedFor(redisCluster, user)).toEqual([]);
    expect(agentLog.join('')).not.toContain('NOPERM');
  });

  it('holds the prunes for confirmation when the share Git dropped is over the mass-prune threshold', { timeout: 300_000 }, async () => {
    const kept = names.slice(3);
    const uids = new Map(await Promise.all(kept.map(async (name) => [name, await uidOf(name)] as const)));
    await stop();
    await wipe();
    const dropped = kept.slice(0, 5);
    for (const name of dropped) await repo.delete(`${name}.yaml`);
    await repo.commitAndPush('remove five of seven while Redis is empty');
    await start();

    await expect.poll(async () => (await store.get(cluster, key(dropped[0]!)))?.failure?.code, { timeout: 120_000, interval: 500 }).toBe('PruneAwaitingConfirmation');
    const hold = await new PruneHolds(admin, keys.prefix).get(source, cluster);
    expect(hold).toMatchObject({ state: 'waiting', total: 7 });
    expect([...(hold?.removed ?? [])].sort()).toEqual(dropped.map(key).sort());
    for (const name of kept) expect(await uidOf(name), name).toBe(uids.get(name));
    expect((await store.history(cluster, key(dropped[0]!))).map((entry) => entry.stage)).toContain('rebuild');
    expect(await deniedFor(redisCluster, user)).toEqual([]);
  });
});
