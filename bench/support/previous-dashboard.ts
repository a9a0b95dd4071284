// The dashboard of the previous release (main at 53f8326, before the pictures of issue 22), built
// from its own sources by test/upgrade's builder and run as a child process on the bench's Redis,
// so the objects page of both can be measured in one run against the same records.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { freePort, stopProcess } from '@tidemark/testing';
import { buildPreviousRelease, previousReleaseCommit } from '../../test/upgrade/previous-release';

export interface PreviousDashboard {
  commit: string;
  base: URL;
  stop(): Promise<void>;
}

/** startPreviousDashboard serves the previous release's dashboard on the given Redis prefix, with one viewer token. */
export async function startPreviousDashboard(options: { redisUrl: string; prefix: string; clusters: readonly string[]; token: string }): Promise<PreviousDashboard> {
  const reconcilerBundle = await buildPreviousRelease();
  const bundle = join(dirname(dirname(reconcilerBundle)), 'dashboard', 'main.js');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [bundle], {
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
    if (child.exitCode !== null) throw new Error(`the previous release's dashboard exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(new URL('/readyz', base)).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stopProcess(child, 5_000);
      throw new Error(`the previous release's dashboard was not ready within 120 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { commit: previousReleaseCommit, base, stop: () => stopProcess(child, 10_000) };
}
