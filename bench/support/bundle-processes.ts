// Many reconciler bundles as processes, as the image runs them (its ENTRYPOINT's node flags), for
// benches that start a fleet of them: each one's whole stdout and stderr go to a log file of its own,
// and how it ended (exit code or signal, when, its RSS and CPU last read) is kept, so a process lost
// in the middle of a run says why. Starts are staggered: at most `concurrency` processes are starting
// (between spawn and their started line) at once, so a fleet's start does not starve a loaded machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpuSeconds } from './process-cpu';
import { procStatus } from './reconciler-process';

/** BundleProcess is one running bundle; `ended` is set once it exited. */
export interface BundleProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logPath: string;
  started: boolean;
  /** How the process ended, once it did: exit code or signal, seconds after spawn, and its last readings before. */
  ended?: { code: number | null; signal: string | null; afterSeconds: number; lastRssMiB?: number; lastCpuSeconds?: number };
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** The last lines of its log, for an error message. */
  tail(lines?: number): Promise<string>;
}

export interface BundleProcessOptions {
  name: string;
  bundle: string;
  nodeFlags: readonly string[];
  env: Record<string, string>;
  logPath: string;
  /** A line of output that says the process has started. */
  startedLine: string;
}

/** startBundleProcess spawns `node ...nodeFlags bundle` with its output in `logPath`. */
export function startBundleProcess(options: BundleProcessOptions): BundleProcess {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...options.nodeFlags, options.bundle], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(options.logPath);
  let recent = '';
  const last: { rss?: number; cpu?: number } = {};
  const app: BundleProcess = {
    name: options.name, child, logPath: options.logPath, started: false,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => {
      app.ended = { code, signal, afterSeconds: Math.round((performance.now() - spawnedAt) / 100) / 10, lastRssMiB: last.rss, lastCpuSeconds: last.cpu };
      log.end(resolve);
    })),
    tail: async (lines = 30) => (await readFile(options.logPath, 'utf8').catch(() => '')).split('\n').slice(-lines - 1).join('\n'),
  };
  const keep = (chunk: Buffer) => {
    log.write(chunk);
    if (app.started) return;
    recent = `${recent}${chunk.toString()}`.slice(-4_000);
    if (recent.includes(options.startedLine)) app.started = true;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // The last RSS and CPU read while it ran, so a process killed by the kernel (OOM) says how big it was.
  const sampler = setInterval(() => {
    void Promise.all([procStatus(child.pid!), cpuSeconds(child.pid!)]).then(([status, cpu]) => {
      last.rss = Math.round(status.rss / 1024);
      last.cpu = cpu;
    }, () => undefined);
  }, 5_000);
  sampler.unref();
  void app.exited.then(() => clearInterval(sampler));
  return app;
}

/**
 * startStaggered starts one process per options entry, with at most `concurrency` between spawn and
 * started at once, and resolves when all have started. It throws (naming the process, how it ended
 * and its log's tail) as soon as one exits, or when one has not started in `timeoutMs`.
 */
export async function startStaggered(all: readonly BundleProcessOptions[], concurrency: number, timeoutMs: number, onStarted?: (app: BundleProcess, index: number) => void): Promise<BundleProcess[]> {
  const running: BundleProcess[] = [];
  let next = 0;
  const lane = async () => {
    while (next < all.length) {
      const index = next;
      next += 1;
      const app = startBundleProcess(all[index]!);
      running[index] = app;
      const deadline = performance.now() + timeoutMs;
      while (!app.started) {
        const lost = running.find((other) => other?.ended);
        if (lost) throw new Error(`${lost.name} exited while the fleet started: ${endText(lost)}\n${await lost.tail()}`);
        if (performance.now() > deadline) throw new Error(`${app.name} did not start in ${timeoutMs / 1000} s:\n${await app.tail()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      onStarted?.(app, index);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, all.length) }, lane));
  } catch (error) {
    await Promise.all(running.filter(Boolean).map((app) => stopBundleProcess(app, 0)));
    throw error;
  }
  return running;
}

/** endText says how a process ended: `exit code 1 after 93.2 s (last RSS 181 MiB)`. */
export function endText(app: BundleProcess): string {
  const ended = app.ended;
  if (!ended) return 'still running';
  const how = ended.signal ? `signal ${ended.signal}` : `exit code ${ended.code}`;
  return `${how} after ${ended.afterSeconds} s${ended.lastRssMiB === undefined ? '' : ` (last RSS ${ended.lastRssMiB} MiB, ${ended.lastCpuSeconds} CPU s)`}; log ${app.logPath}`;
}

/** stopBundleProcess sends SIGTERM, waits up to `graceMs`, then SIGKILL, and resolves once it is gone. */
export async function stopBundleProcess(app: BundleProcess, graceMs = 20_000): Promise<void> {
  if (app.ended) return;
  if (graceMs > 0) {
    app.child.kill('SIGTERM');
    await Promise.race([app.exited, new Promise((resolve) => setTimeout(resolve, graceMs))]);
  }
  if (!app.ended) app.child.kill('SIGKILL');
  await app.exited;
}

/** loadAverage is /proc/loadavg's 1-minute figure. */
export async function loadAverage(): Promise<number> {
  return Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
}
