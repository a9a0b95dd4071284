// Many replicas, one truth: three real reconciler processes on one Redis and one API server take a
// push of 1,000 ConfigMaps while one of them, at random, is killed (SIGKILL) every few seconds and
// started again. Every object converges, each is applied once for its revision (the API server's
// audit log has one accepted apply of each; an apply a kill cut is answered 504 and writes nothing),
// no job is lost or failed, and the commit-to-live clock, kept in Redis, has a figure for every
// object whichever replica polled and whichever applied.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findCondition, RecordKeys, type ObjectStatus } from '@tidemark/contracts';
import { ReconcileQueues } from '@tidemark/queue';
import { buildAppBundles, killAppProcess, markAuditLog, startAppProcess, startControlPlane, startGitServer, type AppBundles, type AppProcess, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { removeKeys, sleep, waitFor } from './helpers';
import { appliedConfigMaps, managedConfigMaps, queueIdle, writeConfigMaps, writeReconcilerConfig } from './reconciler-apps';

const id = randomUUID().slice(0, 8);
const namespace = `replicas-${id}`;
const prefix = `replicas-${id}`;
const cluster = 'replicas';
const source = 'replicas';
const objects = 1_000;
const replicas = 3;
// A kill every few seconds while the push is worked on; then the survivors finish.
const killEveryMs = 3_000;
const maxKills = 8;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const redisUrl = inject('redisUrl');
const keys = new RecordKeys(prefix);

let bundles: AppBundles;
let plane: ControlPlane;
let git: GitServer;
let repo: WorkingCopy;
let repoUrl: string;
let workDir: string;
let redis: Redis;
let queues: ReconcileQueues;
const running: AppProcess[] = [];
let replicaCount = 0;

async function startReplica(): Promise<AppProcess> {
  const name = `r${(replicaCount += 1)}`;
  const configPath = await writeReconcilerConfig({ redis: { url: redisUrl, prefix }, workDir, name, source, repoUrl, cluster, kubeconfigPath: plane.kubeconfigPath });
  const replica = startAppProcess({ name, bundle: bundles.reconciler, env: { TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'info' }, startedLine: 'tidemark reconciler started' });
  running.push(replica);
  return replica;
}

async function killReplica(replica: AppProcess): Promise<void> {
  running.splice(running.indexOf(replica), 1);
  await killAppProcess(replica);
}

/** readyAt counts the objects whose status record says Ready at the revision. */
async function readyAt(revision: string): Promise<number> {
  const records = Object.values(await redis.hgetall(keys.objectStatus(cluster))).map((text) => JSON.parse(text) as ObjectStatus);
  return records.filter((record) => record.kind === 'ConfigMap' && record.namespace === namespace && record.lastAppliedRevision === revision && findCondition(record.conditions, 'Ready')?.status === 'True').length;
}

function outputs(): string {
  return running.map((replica) => `--- ${replica.name}\n${replica.output}`).join('\n');
}

beforeAll(async () => {
  // The built bundle, as the image runs it.
  bundles = await buildAppBundles(repoRoot, `test-artifacts/replica-kills-${id}`);
  [plane, git] = await Promise.all([startControlPlane({ name: `replicas-${id}`, auditLog: true }), startGitServer()]);
  repoUrl = await git.createRepository(source);
  repo = await git.workingCopy(source);
  await plane.kubectl(['create', 'namespace', namespace]);
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-replicas-'));
  redis = new Redis(redisUrl);
  queues = new ReconcileQueues({ connection: redisUrl, prefix, clusters: [cluster] });
  await queues.start();
});

afterAll(async () => {
  await Promise.all([...running].map(killReplica));
  await queues?.close();
  if (redis) {
    await removeKeys(redis, prefix);
    redis.disconnect();
  }
  await Promise.all([git?.stop(), plane?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
  await bundles?.remove();
});

/**
 * killWhileApplying kills, once work is in flight, a random replica of those that have started,
 * every few seconds or sooner when another 150 objects went live (a quiet machine finishes the
 * push in seconds), and starts another. One is always left running, so the push moves on even
 * when restarts are slow. It returns how many it killed before every object was Ready.
 */
async function killWhileApplying(revision: string): Promise<number> {
  await waitFor(async () => (await readyAt(revision)) > 0, 300_000, `the first object to be applied:\n${outputs()}`);
  let kills = 0;
  let lastKill = { at: performance.now(), ready: 0 };
  for (let ready = await readyAt(revision); kills < maxKills && ready < objects; ready = await readyAt(revision)) {
    const candidates = running.filter((replica) => replica.started);
    const due = performance.now() - lastKill.at >= killEveryMs || ready - lastKill.ready >= 150;
    if (due && candidates.length >= 2) {
      await killReplica(candidates[Math.floor(Math.random() * candidates.length)]!);
      kills += 1;
      lastKill = { at: performance.now(), ready };
      await startReplica();
    }
    await sleep(250);
  }
  return kills;
}

describe('three reconciler replicas, one killed at random every few seconds', () => {
  it('a push of 1,000 ConfigMaps converges, each applied once, no job lost, every object timed', async () => {
    for (let index = 0; index < replicas; index += 1) await startReplica();
    await waitFor(() => running.every((replica) => replica.started), 180_000, `the replicas to start:\n${outputs()}`);
    await writeConfigMaps(repo, namespace, Array.from({ length: objects }, (_, index) => index));
    const mark = await markAuditLog(plane.auditLogPath!);
    const revision = await repo.commitAndPush('1,000 ConfigMaps');
    const kills = await killWhileApplying(revision);
    expect(kills, 'replicas killed while objects were being applied').toBeGreaterThanOrEqual(3);

    // A killed replica's jobs come back when their lock expires (30 s) and the stalled check runs.
    await waitFor(async () => (await readyAt(revision)) === objects, 300_000, `every object Ready at ${revision} (${await readyAt(revision)} of ${objects}):\n${outputs()}`);
    await waitFor(() => queueIdle(queues), 120_000, 'the queue to drain');

    // Converged: every ConfigMap is in the cluster, as Git has it.
    const live = await managedConfigMaps(plane, namespace);
    expect(live).toHaveLength(objects);
    expect(live.every((item) => item.data?.index === item.metadata.name.slice('config-'.length))).toBe(true);

    // No job lost or failed.
    const [figures] = await queues.figures();
    expect(figures?.depth.failed).toBe(0);
    expect(figures?.failingObjects).toBe(0);

    // Applied once per revision: the API server accepted one server-side apply (not a dry-run) per
    // ConfigMap. A kill cuts the applies its replica had in flight: the API server answers each 504,
    // it wrote nothing (the run that takes the job over creates the object: 201), and a cut request
    // the server did finish leaves the object there, so the takeover finds it unchanged and sends
    // no apply at all. Either way no ConfigMap is written twice.
    const applies = await appliedConfigMaps(plane, namespace, mark);
    const cut = await appliedConfigMaps(plane, namespace, mark, 'refused');
    expect([...applies].filter(([, count]) => count !== 1), 'ConfigMaps applied more than once for one revision').toEqual([]);
    const names = Array.from({ length: objects }, (_, index) => `config-${index}`);
    expect(names.filter((name) => !applies.has(name) && !cut.has(name)), 'ConfigMaps never applied').toEqual([]);
    expect([...cut.values()].reduce((sum, count) => sum + count, 0), `applies cut by the kills: ${JSON.stringify([...cut])}`).toBeLessThanOrEqual(kills * 12);

    // The commit-to-live clock timed every object once, whichever replica polled and which applied.
    const clock = Object.entries(await redis.hgetall(keys.commitClock(source, revision, cluster))).filter(([field]) => field.startsWith('o:'));
    expect(clock.filter(([, value]) => value === 'pending').map(([field]) => field), 'objects the clock did not time').toEqual([]);
    expect(clock.filter(([, value]) => Number.isFinite(Number(value)))).toHaveLength(objects);
  }, 900_000);
});
