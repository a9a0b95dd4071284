// The dashboards of the A/B: the previous release's (main at 53f8326, before the pictures of issue
// 22), built from its own sources by test/upgrade's builder, and this checkout's, built by
// scripts/build.mjs into a temporary folder. Both run the same way, as a child process of their
// own bundle on the bench's Redis, so neither shares an event loop with the load generator.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, stopProcess } from '@tidemark/testing';
import { buildPreviousRelease, previousReleaseCommit } from '../../test/upgrade/previous-release';

export interface DashboardProcess {
  /** What runs: the previous release's commit, or 'this checkout'. */
  commit: string;
  base: URL;
  stop(): Promise<void>;
}

export interface DashboardProcessOptions {
  redisUrl: string;
  prefix: string;
  clusters: readonly string[];
  /** One viewer token. */
  token: string;
  /** When set, the process writes a V8 CPU profile into this folder as it stops (node --cpu-prof). */
  cpuProfileDir?: string;
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * startPreviousDashboard serves the previous release's dashboard (or that of `commit`, a commit id)
 * on the given Redis prefix, with one viewer token.
 */
export async function startPreviousDashboard(options: DashboardProcessOptions, commit = previousReleaseCommit): Promise<DashboardProcess> {
  const reconcilerBundle = await buildPreviousRelease(commit);
  const served = await startDashboardBundle(join(dirname(dirname(reconcilerBundle)), 'dashboard', 'main.js'), options);
  return { ...served, commit };
}

/**
 * startCurrentDashboard bundles this checkout's apps into a temporary folder and serves its
 * dashboard the same way. The folder is inside the checkout (under the ignored .tidemark/), so the
 * bundle's npm packages resolve from its node_modules.
 */
export async function startCurrentDashboard(options: DashboardProcessOptions): Promise<DashboardProcess> {
  await mkdir(join(repoRoot, '.tidemark'), { recursive: true });
  const outdir = await mkdtemp(join(repoRoot, '.tidemark', 'bench-dashboard-'));
  try {
    await runBuild(outdir);
    const served = await startDashboardBundle(join(outdir, 'dashboard', 'main.js'), options);
    return { ...served, commit: 'this checkout', stop: () => served.stop().finally(() => rm(outdir, { recursive: true, force: true })) };
  } catch (error) {
    await rm(outdir, { recursive: true, force: true });
    throw error;
  }
}

function runBuild(outdir: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['scripts/build.mjs', '--outdir', outdir], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`scripts/build.mjs --outdir ${outdir}: ${stderr.trim()}`))));
  });
}

/** startDashboardBundle runs a dashboard bundle until its status cache has loaded every record. */
async function startDashboardBundle(bundle: string, options: DashboardProcessOptions): Promise<Omit<DashboardProcess, 'commit'>> {
  const port = await freePort();
  const nodeArgs = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, bundle], {
    env: {
      PATH: process.env.PATH ?? '',
      TIDEMARK_REDIS_URL: options.redisUrl,
      TIDEMARK_REDIS_PREFIX: options.prefix,
      TIDEMARK_DASHBOARD_HOST: '127.0.0.1',
      TIDEMARK_DASHBOARD_PORT: String(port),
      TIDEMARK_DASHBOARD_CLUSTERS: options.clusters.join(','),
      TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'bench', role: 'viewer', token: options.token }]),
      TIDEMARK_DASHBOARD_SESSION_SECRET: 'bench-session-secret-of-32-characters!!',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr = `${stderr}${chunk.toString()}`.slice(-4000); });
  const base = new URL(`http://127.0.0.1:${port}/`);
  const deadline = Date.now() + 120_000;
  // Ready once its status cache has loaded every record: /readyz answers only after the app is ready.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the dashboard ${bundle} exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(new URL('/readyz', base)).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stopProcess(child, 5_000);
      throw new Error(`the dashboard ${bundle} was not ready within 120 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { base, stop: () => stopProcess(child, 10_000) };
}
