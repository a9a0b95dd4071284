// An agent logged in to a Redis Cluster as the ACL user agentAclRule makes (issue 40, item 3): the
// hub and the agent run in this process (startReconciler twice, the agent with TIDEMARK_ROLE=agent
// and its own Redis user on every node), the agent alone holds its cluster's kubeconfig. A push
// converges through the agent with Redis never refusing it a command (every node's ACL LOG names
// no denial for its user); then Redis itself refuses the same login what is not its cluster's:
// another cluster's records, a job for another cluster, and a source record.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { findCondition, RecordKeys, type ObjectStatus } from '@tidemark/contracts';
import { agentAclRule, ReconcileQueues, redisPrefix } from '@tidemark/queue';
import { kubectl, startGitServer, startRedisCluster, type GitServer, type TestRedisCluster, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { jobFor } from '../queue/helpers';
import { deniedFor, eachNode } from './cluster-acl';

const id = randomUUID().slice(0, 8);
const namespace = `agent-acl-${id}`;
const prefix = `aacl-${id}`;
const naming = { prefix, hashTag: true };
const keys = new RecordKeys(redisPrefix(naming));
const user = `agent-edge-${id}`;
const password = randomUUID().replaceAll('-', '');
const count = 10;
let redisCluster: TestRedisCluster;
let admin: Cluster;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let hub: RunningReconciler | undefined;
let agent: RunningReconciler | undefined;
const agentLog: string[] = [];

async function readyAt(revision: string): Promise<number> {
  const records = Object.values(await admin.hgetall(keys.objectStatus('edge'))).map((text) => JSON.parse(text) as ObjectStatus);
  return records.filter((record) => record.kind === 'ConfigMap' && record.namespace === namespace && record.lastAppliedRevision === revision && findCondition(record.conditions, 'Ready')?.status === 'True').length;
}

async function commit(value: string): Promise<string> {
  for (let index = 0; index < count; index += 1) {
    await repo.write(`app/config-${index}.yaml`, stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `config-${index}`, namespace }, data: { value } }));
  }
  return repo.commitAndPush(`every ConfigMap at ${value}`);
}

beforeAll(async () => {
  redisCluster = await startRedisCluster({ masters: 3 });
  admin = new Cluster(redisCluster.nodes);
  await eachNode(redisCluster, (node) => node.call('ACL', 'SETUSER', user, 'on', `>${password}`, ...agentAclRule('edge', naming)));
  await eachNode(redisCluster, (node) => node.call('ACL', 'LOG', 'RESET'));
  git = await startGitServer();
  const url = await git.createRepository(`agent-acl-${id}`);
  repo = await git.workingCopy(`agent-acl-${id}`);
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-agent-acl-'));
  const nodes = redisCluster.nodes.map((node) => `${node.host}:${node.port}`);
  const common = {
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 1_000 }],
    http: { port: 0, host: '127.0.0.1' },
    healthCheck: { intervalMs: 300, timeoutMs: 30_000, failureThreshold: 10 },
  };
  await writeFile(join(workDir, 'hub.yaml'), stringify({ ...common, redis: { cluster: { nodes }, prefix }, cacheDir: join(workDir, 'cache-hub'), clusters: [{ name: 'edge', agent: true }] }));
  await writeFile(join(workDir, 'agent.yaml'), stringify({
    ...common, cacheDir: join(workDir, 'cache-agent'),
    redis: { cluster: { nodes, username: user, password: { env: 'AGENT_REDIS_PASSWORD' } }, prefix },
    clusters: [{ name: 'edge', kubeconfig: inject('kubeconfigPath') }],
  }));
  // The hub first: it claims the schema, which the agent may only read.
  hub = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'hub.yaml') }), createLogger('error'));
  const destination = { write: (line: string) => void agentLog.push(line) };
  agent = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'agent.yaml'), TIDEMARK_ROLE: 'agent', AGENT_REDIS_PASSWORD: password }), createLogger('warn', destination))
    .catch(async (error: unknown) => { throw new Error(`the agent did not start: ${String(error)}; refused: ${(await deniedFor(redisCluster, user)).join(', ')}`); });
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await hub?.stop();
  admin?.disconnect();
  await redisCluster?.stop();
  await git?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('an agent logged in with its Redis ACL rule, on a Redis Cluster', () => {
  it('runs a push to convergence, and Redis refuses it nothing on the way', { timeout: 240_000 }, async () => {
    const first = await commit('1');
    await expect.poll(() => readyAt(first), { timeout: 120_000, interval: 500 }).toBe(count);
    const second = await commit('2');
    await expect.poll(() => readyAt(second), { timeout: 120_000, interval: 500 }).toBe(count);
    expect(await deniedFor(redisCluster, user)).toEqual([]);
    expect(agentLog.join('')).not.toContain('NOPERM');
  });

  it('is refused by Redis itself another cluster\'s records, a job for another cluster and a source record', async () => {
    const login = new Cluster(redisCluster.nodes, { redisOptions: { username: user, password }, clusterRetryStrategy: () => null });
    const queues = new ReconcileQueues({ connection: new Cluster(redisCluster.nodes, { redisOptions: { username: user, password, maxRetriesPerRequest: 1 } }), ...naming, clusters: ['other'] });
    try {
      expect(await login.hlen(keys.objectStatus('edge'))).toBeGreaterThanOrEqual(count);
      await expect(login.hgetall(keys.objectStatus('other'))).rejects.toThrow(/NOPERM/);
      await expect(login.hset(keys.objectStatus('other'), 'x', '{}')).rejects.toThrow(/NOPERM/);
      await expect(login.hset(keys.sourceStatus('apps'), 'revision', 'f'.repeat(40))).rejects.toThrow(/NOPERM/);
      await expect(login.call('KEYS', '*')).rejects.toThrow(/NOPERM/);
      await expect(login.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
      await expect((async () => {
        await queues.start();
        await queues.enqueue(jobFor('other', 'core/ConfigMap/apps/one', 1));
      })()).rejects.toThrow(/NOPERM/);
      expect(await admin.exists(`{${prefix}.other}:reconcile.other:tm:latest`)).toBe(0);
      expect(await admin.hget(keys.sourceStatus('apps'), 'revision')).not.toBe('f'.repeat(40));
    } finally {
      await queues.close().catch(() => undefined);
      login.disconnect();
    }
  });
});
