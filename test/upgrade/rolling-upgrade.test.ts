// A rolling upgrade on one Redis: the previous release's reconciler (built from main at 53f8326)
// runs, the new one starts beside it and both take jobs for a while, then the old one stops. No
// job is lost (every object reaches every commit, no job fails) and no record is misread (the new
// release reads every status record, whichever release wrote it). Last, a downgrade: the new
// release refuses a Redis whose records a newer release wrote, with a message saying why.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { findCondition, RecordKeys, redisSchemaVersion, SchemaTooNewError } from '@tidemark/contracts';
import { kubectl, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { buildPreviousRelease } from './previous-release';

const id = randomUUID().slice(0, 8);
const namespace = `upgrade-${id}`;
const prefix = `upgrade-${id}`;
const count = 24;
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

/** valuesInCluster counts the ConfigMaps by their data.release, as the API server has them. */
async function valuesInCluster(): Promise<Record<string, number>> {
  const list = JSON.parse(await kubectl(inject('kubeconfigPath'), ['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'json'])) as { items: { data?: { release?: string } }[] };
  const counts: Record<string, number> = {};
  for (const item of list.items) counts[item.data?.release ?? ''] = (counts[item.data?.release ?? ''] ?? 0) + 1;
  return counts;
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
  const bundle = await buildPreviousRelease();
  git = await startGitServer();
  const url = await git.createRepository(`upgrade-${id}`);
  repo = await git.workingCopy(`upgrade-${id}`);
  await repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-upgrade-'));
  configPath = join(workDir, 'tidemark.yaml');
  // One file both releases accept: nothing the previous release does not know.
  await writeFile(configPath, stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'upgrade', url, ref: { branch: 'main' }, intervalMs: 1_000 }],
    clusters: [{ name: 'shared', kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    workers: { concurrency: 2 },
  }));
  startOldRelease(bundle);
});
afterAll(async () => {
  await stopOldRelease();
  await current?.stop();
  await git?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('rolling upgrade from the previous release', () => {
  it('the previous release reconciles on its own', async () => {
    await commit('old');
    await expect.poll(valuesInCluster, { timeout: 90_000, interval: 500 }).toEqual({ old: count });
    expect(oldOutput).toContain('tidemark reconciler started');
  });

  it('both releases on one Redis lose no job: every object reaches the next commit and no job fails', async () => {
    current = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('error'));
    await commit('both');
    await expect.poll(valuesInCluster, { timeout: 90_000, interval: 500 }).toEqual({ both: count });
    const figures = await current.queues.figures();
    expect(figures.map((figure) => [figure.depth.failed, figure.failingObjects])).toEqual([[0, 0]]);
    expect(oldRelease?.exitCode).toBeNull();
  });

  it('the new release reads every record, whichever release wrote it, and finishes alone', async () => {
    await stopOldRelease();
    await commit('new');
    await expect.poll(valuesInCluster, { timeout: 90_000, interval: 500 }).toEqual({ new: count });
    const records = await current!.statusStore.list('shared');
    const ours = records.filter((record) => record.namespace === namespace && record.kind === 'ConfigMap');
    expect(ours).toHaveLength(count);
    for (const record of ours) expect(findCondition(record.conditions, 'Ready')?.status).toBe('True');
    expect(ours.every((record) => record.schemaVersion === redisSchemaVersion)).toBe(true);
    expect((await current!.queues.figures()).map((figure) => [figure.depth.failed, figure.failingObjects])).toEqual([[0, 0]]);
  });

  it('refuses to run on records a newer release wrote (a downgrade), saying why', async () => {
    await current?.stop();
    current = undefined;
    const redis = new Redis(inject('redisUrl'));
    const keys = new RecordKeys(prefix);
    expect(await redis.hget(keys.schema, 'version')).toBe(String(redisSchemaVersion));
    await redis.hset(keys.schema, 'version', String(redisSchemaVersion + 1));
    redis.disconnect();
    const refused = startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('error'));
    await expect(refused).rejects.toThrow(SchemaTooNewError);
    await expect(refused).rejects.toThrow(`holds records of schema ${redisSchemaVersion + 1}, written by a newer Tidemark; this release reads schema ${redisSchemaVersion} and older. Downgrading is refused`);
  });
});
