// A rolling upgrade on a Redis Cluster, across the move of each target cluster's records to its
// own hash tag (schema 3). The previous release (main at 7d504f4, schema 2, before the move)
// keeps every record under the deployment's tag {prefix}; the new one names them
// {prefix.<cluster>}. Both run side by side for a commit, then the old one stops. No record is
// lost: every object's status and history, a freeze and a waiting prune hold the old layout held
// are read under the new names; nothing of a target cluster is left under the shared tag; no job
// fails; and the cluster's records now sit in the slot of its own tag.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { findCondition, movedName, readClusterFreeze, RecordKeys, redisSchemaVersion } from '@tidemark/contracts';
import { PruneHolds } from '@tidemark/status-store';
import { kubectl, startGitServer, startRedisCluster, type GitServer, type TestRedisCluster, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { buildPreviousRelease } from './previous-release';

const beforeTheMove = '7d504f4';
const id = randomUUID().slice(0, 8);
const namespace = `keys-upgrade-${id}`;
const prefix = `keys-${id}`;
const count = 12;
const keys = new RecordKeys(`{${prefix}}`);
let redisCluster: TestRedisCluster;
let redis: Cluster;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let configPath: string;
let oldRelease: ChildProcess | undefined;
let oldOutput = '';
let current: RunningReconciler | undefined;

async function commit(value: string): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await repo.write(`app/config-${index}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${index}\n  namespace: ${namespace}\ndata:\n  release: "${value}"\n`);
  }
  await repo.commitAndPush(`every ConfigMap at ${value}`);
}

async function valuesInCluster(): Promise<Record<string, number>> {
  const list = JSON.parse(await kubectl(inject('kubeconfigPath'), ['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'json'])) as { items: { data?: { release?: string } }[] };
  const counts: Record<string, number> = {};
  for (const item of list.items) counts[item.data?.release ?? ''] = (counts[item.data?.release ?? ''] ?? 0) + 1;
  return counts;
}

/** legacyClusterKeys lists the keys under the shared tag that name a target cluster's record (the old layout). */
async function legacyClusterKeys(): Promise<string[]> {
  const slot = Number(await redis.cluster('KEYSLOT', keys.prefix));
  const found: string[] = [];
  for (const node of redis.nodes('master')) {
    const inSlot = Number(await node.cluster('COUNTKEYSINSLOT', slot));
    if (inSlot > 0) found.push(...(await node.cluster('GETKEYSINSLOT', slot, inSlot)) as string[]);
  }
  return found.filter((key) => movedName(keys, key) !== undefined || key === `${keys.prefix}:prune-holds`);
}

function startOldRelease(bundle: string): void {
  oldRelease = spawn(process.execPath, [bundle], { env: { ...process.env, TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  oldRelease.stdout?.on('data', (chunk: Buffer) => (oldOutput += chunk.toString()));
  oldRelease.stderr?.on('data', (chunk: Buffer) => (oldOutput += chunk.toString()));
}

async function stopOldRelease(): Promise<void> {
  const child = oldRelease;
  oldRelease = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  const bundle = await buildPreviousRelease(beforeTheMove);
  redisCluster = await startRedisCluster({ masters: 3 });
  redis = new Cluster(redisCluster.nodes);
  git = await startGitServer();
  const url = await git.createRepository(`keys-upgrade-${id}`);
  repo = await git.workingCopy(`keys-upgrade-${id}`);
  await repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-keys-upgrade-'));
  configPath = join(workDir, 'tidemark.yaml');
  await writeFile(configPath, stringify({
    redis: { cluster: { nodes: redisCluster.nodes.map((node) => `${node.host}:${node.port}`) }, prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'upgrade', url, ref: { branch: 'main' }, intervalMs: 1_000 }],
    clusters: [{ name: 'shared', kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    workers: { concurrency: 2 },
  }));
  startOldRelease(bundle);
}, 300_000);

afterAll(async () => {
  await stopOldRelease();
  await current?.stop();
  redis?.disconnect();
  await redisCluster?.stop();
  await git?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('rolling upgrade across per-cluster hash tags, on a Redis Cluster', () => {
  it('the previous release keeps every record under the shared tag', { timeout: 180_000 }, async () => {
    await commit('old');
    await expect.poll(valuesInCluster, { timeout: 120_000, interval: 500 }).toEqual({ old: count });
    expect(oldOutput).toContain('tidemark reconciler started');
    expect(await redis.hlen(`${keys.prefix}:status:shared`)).toBeGreaterThanOrEqual(count);
    // What the run did not make: a freeze of another cluster and a prune waiting for confirmation.
    await redis.set(`${keys.prefix}:cluster-freeze:elsewhere`, JSON.stringify({ by: 'ops', reason: 'maintenance', since: new Date().toISOString() }));
    const hold = { source: 'upgrade', cluster: 'shared', revision: 'a'.repeat(40), removed: ['core/ConfigMap/x/y'], total: 2, threshold: 0.3, state: 'waiting', decidedAt: new Date().toISOString() };
    await redis.set(`${keys.prefix}:prune-hold:upgrade:shared`, JSON.stringify(hold));
    await redis.sadd(`${keys.prefix}:prune-holds`, 'shared/upgrade');
  });

  it('both releases side by side lose no job', async () => {
    current = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('error'), { keyMoveIntervalMs: 1_000 });
    await commit('both');
    // Either release's workers may run any object. An old one reads its dependency (the Namespace)
    // under the shared name: the new release keeps its status records there while the old one writes,
    // or each object an old worker took would wait a full recheck (one of 12 over 240 s, before).
    await expect.poll(valuesInCluster, { timeout: 240_000, interval: 500 }).toEqual({ both: count });
    expect((await current.queues.figures()).map((figure) => [figure.depth.failed, figure.failingObjects])).toEqual([[0, 0]]);
    expect(oldRelease?.exitCode).toBeNull();
  }, 300_000);

  it('once the old release stops, every record is under its cluster\'s tag and none is lost', { timeout: 240_000 }, async () => {
    await stopOldRelease();
    await commit('new');
    await expect.poll(valuesInCluster, { timeout: 120_000, interval: 500 }).toEqual({ new: count });
    // The old release's last writes are moved by the next pass.
    await expect.poll(legacyClusterKeys, { timeout: 30_000, interval: 500 }).toEqual([]);
    const records = (await current!.statusStore.list('shared')).filter((record) => record.namespace === namespace && record.kind === 'ConfigMap');
    expect(records).toHaveLength(count);
    for (const record of records) {
      expect(findCondition(record.conditions, 'Ready')?.status).toBe('True');
      expect(record.schemaVersion).toBe(redisSchemaVersion);
      // History from both releases: the old release's runs came along.
      expect((await current!.statusStore.history('shared', record.objectKey)).length).toBeGreaterThan(1);
    }
    expect(await readClusterFreeze(redis, keys, 'elsewhere')).toMatchObject({ cluster: 'elsewhere', by: 'ops', reason: 'maintenance' });
    expect((await new PruneHolds(redis, keys.prefix).waiting(['shared'])).map((hold) => hold.revision)).toEqual(['a'.repeat(40)]);
    expect(keys.objectStatus('shared')).toBe(`{${prefix}.shared}:status:shared`);
    expect(await redis.hlen(keys.objectStatus('shared'))).toBeGreaterThanOrEqual(count);
    expect((await current!.queues.figures()).map((figure) => [figure.depth.failed, figure.failingObjects])).toEqual([[0, 0]]);
  });
});
