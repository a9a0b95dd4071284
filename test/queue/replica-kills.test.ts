// Many replicas, one truth: three real reconciler processes on one Redis and one API server take a
// push of 1,000 ConfigMaps while one of them, at random, is killed (SIGKILL) every few seconds and
// started again. Every object converges, each is applied once for its revision (counted in the API
// server's audit log), no job is lost or failed, and the commit-to-live clock, kept in Redis, has a
// figure for every object whichever replica polled and whichever applied.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { kubeUserAgent } from '@tidemark/cluster';
import { findCondition, RecordKeys, type ObjectStatus } from '@tidemark/contracts';
import { ReconcileQueues } from '@tidemark/queue';
import { markAuditLog, readAuditLog, run, startControlPlane, startGitServer, type AuditLogMark, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { removeKeys, sleep, waitFor } from './helpers';

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
// The built bundle, as the image runs it: it starts in a fraction of tsx's time on a loaded machine.
const outdir = `test-artifacts/replica-kills-${id}`;
const bundle = join(repoRoot, outdir, 'reconciler/main.js');
const redisUrl = inject('redisUrl');
const keys = new RecordKeys(prefix);

/** Replica is one reconciler process, with the tail of its output for failure messages. */
interface Replica {
  name: string;
  child: ChildProcess;
  output: string;
  started: boolean;
  exited: Promise<void>;
}

let plane: ControlPlane;
let git: GitServer;
let repo: WorkingCopy;
let repoUrl: string;
let workDir: string;
let redis: Redis;
let queues: ReconcileQueues;
const running: Replica[] = [];
let replicaCount = 0;

async function startReplica(): Promise<Replica> {
  const name = `r${(replicaCount += 1)}`;
  // Each replica has its own Git cache, as each pod has its own disk.
  const configPath = join(workDir, `${name}.yaml`);
  await writeFile(configPath, stringify({
    redis: { url: redisUrl, prefix },
    cacheDir: join(workDir, `cache-${name}`),
    sources: [{ name: source, url: repoUrl, ref: { branch: 'main' }, intervalMs: 1_000 }],
    clusters: [{ name: cluster, kubeconfig: plane.kubeconfigPath }],
    http: { port: 0, host: '127.0.0.1' },
    workers: { concurrency: 12 },
    // The suite shares a loaded machine: a slow answer from the API server must not pause the queue.
    healthCheck: { timeoutMs: 30_000, failureThreshold: 10 },
  }));
  const child = spawn(process.execPath, [bundle], { env: { ...process.env, TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const replica: Replica = { name, child, output: '', started: false, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
  const keep = (chunk: Buffer) => {
    replica.output = `${replica.output}${chunk.toString()}`.slice(-8_000);
    if (!replica.started && replica.output.includes('tidemark reconciler started')) replica.started = true;
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  running.push(replica);
  return replica;
}

async function killReplica(replica: Replica): Promise<void> {
  running.splice(running.indexOf(replica), 1);
  replica.child.kill('SIGKILL');
  await replica.exited;
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
  await run(process.execPath, ['scripts/build.mjs', '--outdir', outdir], { cwd: repoRoot });
  await writeFile(join(repoRoot, outdir, 'package.json'), '{ "type": "module" }\n');
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
  await rm(join(repoRoot, outdir), { recursive: true, force: true });
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

/** appliesPerConfigMap counts, from the audit log, the server-side applies (not dry-runs) of each ConfigMap since `mark`. */
async function appliesPerConfigMap(mark: AuditLogMark): Promise<Map<string, number>> {
  const applies = new Map<string, number>();
  const path = new RegExp(`^/api/v1/namespaces/${namespace}/configmaps/([^/?]+)\\?`);
  for (const request of await readAuditLog(plane.auditLogPath!, mark, kubeUserAgent)) {
    const name = path.exec(request.requestURI)?.[1];
    if (request.verb !== 'patch' || !name || !/[?&]fieldManager=/.test(request.requestURI) || /[?&]dryRun=/.test(request.requestURI)) continue;
    applies.set(name, (applies.get(name) ?? 0) + 1);
  }
  return applies;
}

/** queueIdle: nothing active or waiting (delayed resyncs may wait). */
async function queueIdle(): Promise<boolean> {
  const [figures] = await queues.figures();
  return figures !== undefined && figures.depth.active === 0 && figures.depth.waiting === 0;
}

describe('three reconciler replicas, one killed at random every few seconds', () => {
  it('a push of 1,000 ConfigMaps converges, each applied once, no job lost, every object timed', async () => {
    for (let index = 0; index < replicas; index += 1) await startReplica();
    await waitFor(() => running.every((replica) => replica.started), 180_000, `the replicas to start:\n${outputs()}`);
    for (let index = 0; index < objects; index += 1) {
      await repo.write(`config/config-${index}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${index}\n  namespace: ${namespace}\ndata:\n  index: "${index}"\n`);
    }
    const mark = await markAuditLog(plane.auditLogPath!);
    const revision = await repo.commitAndPush('1,000 ConfigMaps');
    expect(await killWhileApplying(revision), 'replicas killed while objects were being applied').toBeGreaterThanOrEqual(3);

    // A killed replica's jobs come back when their lock expires (30 s) and the stalled check runs.
    await waitFor(async () => (await readyAt(revision)) === objects, 300_000, `every object Ready at ${revision} (${await readyAt(revision)} of ${objects}):\n${outputs()}`);
    await waitFor(queueIdle, 120_000, 'the queue to drain');

    // Converged: every ConfigMap is in the cluster, as Git has it.
    const list = JSON.parse(await plane.kubectl(['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'json'])) as { items: { metadata: { name: string }; data?: { index?: string } }[] };
    expect(list.items).toHaveLength(objects);
    expect(list.items.every((item) => item.data?.index === item.metadata.name.slice('config-'.length))).toBe(true);

    // No job lost or failed.
    const [figures] = await queues.figures();
    expect(figures?.depth.failed).toBe(0);
    expect(figures?.failingObjects).toBe(0);

    // Applied once per revision: the audit log has one server-side apply (not a dry-run) per ConfigMap.
    const applies = await appliesPerConfigMap(mark);
    expect([...applies].filter(([, count]) => count !== 1), 'ConfigMaps applied more than once for one revision').toEqual([]);
    expect(applies.size).toBe(objects);

    // The commit-to-live clock timed every object once, whichever replica polled and which applied.
    const clock = Object.entries(await redis.hgetall(keys.commitClock(source, revision, cluster))).filter(([field]) => field.startsWith('o:'));
    expect(clock.filter(([, value]) => value === 'pending').map(([field]) => field), 'objects the clock did not time').toEqual([]);
    expect(clock.filter(([, value]) => Number.isFinite(Number(value)))).toHaveLength(objects);
  }, 900_000);
});
