import { afterEach, beforeEach } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { ReconcileQueues } from '@tidemark/queue';
import type { ReconcileJob } from '@tidemark/contracts';
import type { WorkerFixtureConfig } from './fixtures/worker';

/** testPrefix gives each test its own queue prefix, so tests never see each other's keys. */
export function testPrefix(): string {
  return `tq-${randomUUID().slice(0, 8)}`;
}

/** revision n is a stable 40-hex commit id. */
export function revision(n: number): string {
  return createHash('sha1').update(`revision-${n}`).digest('hex');
}

export function jobFor(cluster: string, objectKey: string, n: number, reason: ReconcileJob['reason'] = 'git-change'): ReconcileJob {
  return { source: 'repo', revision: revision(n), cluster, objectKey, reason };
}

/** removeKeys deletes every key of a test prefix: the queues and the probe records. */
export async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  for (const pattern of [`${prefix}:*`, `probe:${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
}

/**
 * waitFor polls until check returns true or the timeout passes, then fails with message: a
 * function is called at the timeout, so what it reports (process output, logs) is of that moment.
 */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, message: string | (() => string | Promise<string>)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms: ${typeof message === 'string' ? message : await message()}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const fixture = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

/** WorkerProcess is a worker child process started from fixtures/worker.ts. */
export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** spawnWorker starts a worker process and resolves once it has started its workers. */
export async function spawnWorker(config: WorkerFixtureConfig): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${config.name} did not start in 30 s: ${output.join('')}`)), 30_000);
    lines.on('line', (line) => {
      output.push(line);
      if (line === 'ready') { clearTimeout(timer); resolve(); }
    });
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`worker ${config.name} exited with ${code}: ${output.join('')}`)); });
  });
  return { child, output, exited };
}

/** killHard sends SIGKILL and waits for the process to be gone. */
export async function killHard(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await worker.exited;
}

/** QueueFixture is what each queue test gets: a private prefix, a Redis client and started queues. */
export interface QueueFixture {
  prefix: string;
  redis: Redis;
  queues: ReconcileQueues;
}

/**
 * useQueueFixture gives every test of the calling suite a fresh fixture and removes it after the
 * test: `release` first (the suite's workers or processes), then the queues and every key.
 */
export function useQueueFixture(redisUrl: string, clusters: string[], release: () => Promise<void>): QueueFixture {
  const fixture = {} as QueueFixture;
  beforeEach(async () => {
    fixture.prefix = testPrefix();
    fixture.redis = new Redis(redisUrl);
    fixture.queues = new ReconcileQueues({ connection: redisUrl, prefix: fixture.prefix, clusters });
    await fixture.queues.start();
  });
  afterEach(async () => {
    await release();
    await fixture.queues.close();
    await removeKeys(fixture.redis, fixture.prefix);
    fixture.redis.disconnect();
  });
  return fixture;
}
