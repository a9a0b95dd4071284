// bench/e2e's first-sync part (issue 42 item 3): a reconciler started fresh on a fresh bare API
// server, with a repository of N WebApps (each renders 4 objects) already pushed, timed from its
// first poll (and from the call that starts it) until every WebApp's record says it was applied at
// that revision. Run at two sizes back to back, the small one's time per object over the large
// one's says what a start costs a small repository (goal ≤ 1.1×, lower is better).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StatusStore } from '@tidemark/status-store';
import { startControlPlane } from '@tidemark/testing';
import type { PushPathMark, PushPathStage } from '../../apps/reconciler/src/push-path-marks';
import { figure, say, type Figure } from './figures';
import { startProfile, type RunningProfile } from './in-process-profile';
import { startBenchStack } from './reconciler-stack';
import { webAppFiles } from './webapps';

/** Objects each WebApp renders (Deployment, Service, ServiceAccount, ConfigMap), the unit of "per object". */
export const objectsPerApp = 4;

/** FirstSyncRun is one fresh start's timeline, ms from the call that starts the reconciler. */
export interface FirstSyncRun {
  apps: number;
  firstPoll: number;
  pollRead: number;
  enqueued: number;
  firstJob: number;
  firstResponse: number;
  /** Every WebApp applied at the pushed revision. */
  applied: number;
  /** When a quarter, half and three quarters of the WebApps were applied: how the runs ramp up. */
  quartiles: [number, number, number];
  requests: number;
  /** API requests by method and path shape: count, summed duration, first sent (ms from start). */
  requestShapes: Array<{ shape: string; count: number; ms: number; first: number }>;
  /** The load average (1 min) before and after the run. */
  load: [number, number];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load1 = () => Math.round((loadavg()[0] ?? 0) * 10) / 10;

/** firstSync times one fresh start with `apps` WebApps in the repository; with `profileFile`, it writes the run's CPU profile there. */
export async function firstSync(apps: number, concurrency: number, profileFile?: string): Promise<FirstSyncRun> {
  const loadBefore = load1();
  const plane = await startControlPlane({ name: `bench-first-sync-${apps}-${Math.random().toString(36).slice(2, 8)}` });
  const workDir = await mkdtemp(join(tmpdir(), 'tidemark-first-sync-'));
  const { files, keys } = webAppFiles('first-sync', 10, apps);
  const seen: Partial<Record<PushPathStage, number>> = {};
  const finished = new Map<string, number>();
  let requests = 0;
  const byShape = new Map<string, { count: number; ms: number; first: number }>();
  const mark: PushPathMark = (stage, detail) => {
    const now = performance.now();
    if (stage === 'job-finished') {
      if (detail.objectKey && !finished.has(detail.objectKey)) finished.set(detail.objectKey, now);
      return;
    }
    if (stage === 'kube-response' && detail.request) {
      requests += 1;
      const { method, path, durationMs, dryRun } = detail.request;
      const shape = `${method}${dryRun ? ' dry-run' : ''} ${path.replace(/\?.*$/, '').replace(/\/namespaces\/[^/]+/, '/namespaces/*').replace(/(\/[a-z0-9.-]+s)\/[^/]+(\/status)?$/, '$1/*$2')}`;
      const entry = byShape.get(shape) ?? { count: 0, ms: 0, first: now - durationMs };
      entry.count += 1;
      entry.ms += durationMs;
      byShape.set(shape, entry);
    }
    seen[stage] ??= now;
  };
  say(`first sync of ${apps} WebApps (${apps * objectsPerApp} objects) on a fresh API server, load ${loadBefore}`);
  // The profile covers this process from the reconciler's start until all applied (the Git server serves from it too).
  let profile: RunningProfile | undefined;
  const beforeReconciler = profileFile === undefined ? undefined : async () => { profile = await startProfile(); };
  const stack = await startBenchStack({ workDir, kubeconfigPath: plane.kubeconfigPath, concurrency, mark, files, ...(beforeReconciler ? { beforeReconciler } : {}) });
  try {
    const revision = await stack.repo.git('rev-parse', 'HEAD');
    const started = stack.reconcilerStartedAt;
    const appliedAt = await waitApplied(keys, finished, stack.reconciler.statusStore, revision);
    if (profile && profileFile) await profile.stop(profileFile);
    const at = (value: number | undefined) => Math.round((value ?? Number.NaN) - started);
    return {
      apps, firstPoll: at(seen['poll-started']), pollRead: at(seen['poll-read']), enqueued: at(seen['jobs-enqueued']), firstJob: at(seen['job-started']),
      firstResponse: at(seen['kube-response']), applied: at(Math.max(...appliedAt.values())),
      requestShapes: [...byShape].map(([shape, entry]) => ({ shape, count: entry.count, ms: Math.round(entry.ms), first: at(entry.first) })).sort((a, b) => a.first - b.first),
      quartiles: quartilesOf([...appliedAt.values()]).map(at) as [number, number, number], requests, load: [loadBefore, load1()],
    };
  } finally {
    await stack.stop();
    await plane.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * waitApplied waits until every key's record says it was applied at `revision`; a key's time is the end
 * of its first run when that run applied it (else when its record was seen so, 50 ms at most later).
 * Records are read only once every key's first run ended, so the bench's reads do not compete with the runs.
 */
async function waitApplied(keys: readonly string[], finished: ReadonlyMap<string, number>, statusStore: StatusStore, revision: string): Promise<Map<string, number>> {
  while (finished.size < keys.length) await sleep(50);
  const appliedAt = new Map<string, number>();
  let records = await statusStore.list('bench');
  for (;;) {
    const now = performance.now();
    for (const record of records.filter((one) => one.lastAppliedRevision === revision && !appliedAt.has(one.objectKey))) {
      appliedAt.set(record.objectKey, Math.min(finished.get(record.objectKey) ?? now, now));
    }
    const missing = keys.filter((key) => !appliedAt.has(key));
    if (missing.length === 0) return appliedAt;
    await sleep(50);
    records = (await statusStore.getMany('bench', missing)).filter((record) => record !== undefined);
  }
}

function quartilesOf(times: number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return [0.25, 0.5, 0.75].map((q) => sorted[Math.floor(q * (sorted.length - 1))] ?? Number.NaN);
}

/** describeRun is one line of a run's timeline for the log. */
export function describeRun(run: FirstSyncRun): string {
  return `  ${run.apps} WebApps: first poll at ${run.firstPoll} ms, read ${run.pollRead}, enqueued ${run.enqueued}, first job ${run.firstJob}, `
    + `first API response ${run.firstResponse}, applied ¼ ${run.quartiles[0]}, ½ ${run.quartiles[1]}, ¾ ${run.quartiles[2]}, all ${run.applied} ms (${run.applied - run.firstPoll} after the first poll), ${run.requests} API responses, load ${run.load[0]}→${run.load[1]}`;
}

/** FirstSyncOptions: where profiles go, and whether the runs share the bench's process. */
export interface FirstSyncOptions {
  /** Each run's CPU profile is written here. @defaultValue none */
  profileDir?: string;
  /**
   * Run every size in this process, one after another. The runs after the first then find its code
   * compiled and warm, which a fresh reconciler never does: the small size, run first, alone paid
   * the process's warm-up. @defaultValue false (each run in a fresh process of its own)
   */
  sameProcess?: boolean;
}

/**
 * firstSyncInProcessOfItsOwn runs firstSync in a fresh node process (this file run with tsx), as a
 * reconciler starts in a fresh process: each size pays its own warm-up. Its log goes to stderr.
 */
async function firstSyncInProcessOfItsOwn(apps: number, concurrency: number, profileFile: string | undefined): Promise<FirstSyncRun> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--first-sync-run', String(apps), '--concurrency', String(concurrency), ...(profileFile ? ['--profile', profileFile] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject); child.once('exit', resolve); });
  const line = output.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the first sync of ${apps} WebApps in its own process exited with ${code}`);
  return JSON.parse(line) as FirstSyncRun;
}

/**
 * firstSyncFigures runs each size in turn, `rounds` times, and gives the small size's time per object
 * over the large one's, from the first poll and from the start, with the median of the rounds. With
 * `profileDir`, each run's CPU profile is written there (first-sync-<apps>-round<n>-<small|large>.cpuprofile).
 * Each run has a fresh process of its own unless `sameProcess`.
 */
export async function firstSyncFigures(sizes: readonly [number, number], rounds: number, concurrency: number, options: FirstSyncOptions = {}): Promise<Figure[]> {
  const [small, large] = sizes;
  const runs: Array<[FirstSyncRun, FirstSyncRun]> = [];
  const profileOf = (apps: number, round: number, which: string) => (options.profileDir === undefined ? undefined : join(options.profileDir, `first-sync-${apps}-round${round + 1}-${which}.cpuprofile`));
  const run = (apps: number, profile: string | undefined) => (options.sameProcess ? firstSync(apps, concurrency, profile) : firstSyncInProcessOfItsOwn(apps, concurrency, profile));
  for (let round = 0; round < rounds; round += 1) {
    const pair: [FirstSyncRun, FirstSyncRun] = [await run(small, profileOf(small, round, 'small')), await run(large, profileOf(large, round, 'large'))];
    for (const run of pair) {
      say(describeRun(run));
      for (const entry of run.requestShapes) say(`    ${entry.shape}: ${entry.count}, ${entry.ms} ms in all, first sent at ${entry.first} ms`);
    }
    runs.push(pair);
  }
  const perObject = (run: FirstSyncRun, from: 'poll' | 'start') => (run.applied - (from === 'poll' ? run.firstPoll : 0)) / (run.apps * objectsPerApp);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
  const loads = runs.flatMap(([a, b]) => [...a.load, ...b.load]);
  const loadText = `load ${Math.min(...loads)}–${Math.max(...loads)}`;
  return (['poll', 'start'] as const).map((from) => figure(
    `first sync of ${small} WebApps × ${objectsPerApp} objects, ms per object from the ${from === 'poll' ? 'first poll' : 'reconciler\'s start'} until all applied (median of ${rounds}, ${loadText})`,
    'ms/object', median(runs.map(([run]) => perObject(run, from))),
    `the same for ${large} WebApps, run right after`, median(runs.map(([, run]) => perObject(run, from))),
  ));
}

// Run as a script (firstSyncInProcessOfItsOwn): one first sync, its FirstSyncRun as the last line of stdout.
const runArg = process.argv.indexOf('--first-sync-run');
if (runArg >= 0) {
  const option = (name: string) => { const at = process.argv.indexOf(name); return at >= 0 ? process.argv[at + 1] : undefined; };
  const run = await firstSync(Number(process.argv[runArg + 1]), Number(option('--concurrency') ?? 16), option('--profile'));
  process.stdout.write(`${JSON.stringify(run)}\n`);
  process.exit(0);
}
