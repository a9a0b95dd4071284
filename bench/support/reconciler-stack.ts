// A whole reconciler on the rig for end-to-end benches: Redis, a Git server, one API server.
// Its log goes to stderr: stdout carries only the bench's result.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { sendGithubPush, startGitServer, startRedis, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import type { PushPathMark } from '../../apps/reconciler/src/push-path-marks';

export interface BenchStack {
  redis: TestRedis;
  git: GitServer;
  repo: WorkingCopy;
  reconciler: RunningReconciler;
  /** performance.now() just before the reconciler was started (its poller may run before start returns). */
  reconcilerStartedAt: number;
  /** notify sends the signed GitHub push webhook for `revision` (default: the repository's HEAD, read first). */
  notify(revision?: string): Promise<void>;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  workDir: string;
  kubeconfigPath: string;
  concurrency: number;
  /** Told when a push passes each point of its path. @defaultValue none */
  mark?: PushPathMark;
  /** Files of the first commit. */
  files: Record<string, string>;
  /** Called right before the reconciler starts, with everything else up (a profile starts here). @defaultValue none */
  beforeReconciler?(): Promise<void>;
}

const secret = 'bench-webhook-secret-0123456789';

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const redis = await startRedis();
  const git = await startGitServer();
  const remote = await git.createRepository('bench');
  const repo = await git.workingCopy('bench');
  for (const [path, content] of Object.entries(options.files)) await repo.write(path, content);
  await repo.commitAndPush('bench objects');
  await mkdir(options.workDir, { recursive: true });
  const configPath = join(options.workDir, 'tidemark.yaml');
  await writeFile(configPath, stringify({
    redis: { url: redis.url },
    cacheDir: join(options.workDir, 'cache'),
    // A long interval: changes arrive by webhook, so the figures do not include a poll wait.
    sources: [{ name: 'bench', url: remote, ref: { branch: 'main' }, intervalMs: 600_000, jitter: 0 }],
    clusters: [{ name: 'bench', kubeconfig: options.kubeconfigPath }],
    workers: { concurrency: options.concurrency },
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'bench', provider: 'github', secret: { env: 'BENCH_WEBHOOK_SECRET' } }],
  }));
  const config = loadConfig({ TIDEMARK_CONFIG: configPath, BENCH_WEBHOOK_SECRET: secret, TIDEMARK_ALLOW_EVICTION: 'true' });
  await options.beforeReconciler?.();
  const reconcilerStartedAt = performance.now();
  const reconciler = await startReconciler(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' }, pino.destination(2)), options.mark ? { mark: options.mark } : {});
  return {
    redis, git, repo, reconciler, reconcilerStartedAt,
    async notify(revision?: string) {
      const after = revision ?? await repo.git('rev-parse', 'HEAD');
      const status = await sendGithubPush(`http://${reconciler.http.address}/hooks/bench`, secret, { ref: 'refs/heads/main', after });
      if (status >= 300) throw new Error(`webhook answered ${status}`);
    },
    async stop() {
      await reconciler.stop();
      await git.stop();
      await redis.stop();
    },
  };
}
