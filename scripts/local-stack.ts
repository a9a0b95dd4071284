import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Logger } from 'pino';
import { startControlPlane, startGitServer, startRedis, type ControlPlane, type GitServer, type TestRedis, type WorkingCopy, renderToolsDir } from '@tidemark/testing';
import { loadConfig, type ReconcilerConfig } from '../apps/reconciler/src/config';
import { startReconciler, type RunningReconciler } from '../apps/reconciler/src/reconciler';

// The local developer stack: what `scripts/tidemark-local` (scripts/local.ts) runs, and what the
// end-to-end suites start. It is not part of the production app, which never imports the rig.

/** LocalStack is Tidemark on embedded defaults: a local Redis, control plane and Git server. */
export interface LocalStack {
  redis: TestRedis;
  plane: ControlPlane;
  git: GitServer;
  /** The sample repository's clone URL, to `git clone` and push to. */
  remote: string;
  repo: WorkingCopy;
  config: ReconcilerConfig;
  reconciler: RunningReconciler;
  stop(): Promise<void>;
}

export interface LocalStackOptions {
  /** Where the config file and Git cache go. */
  workDir: string;
  /** A folder whose files become the sample repository's first commit. */
  sampleDir: string;
  log: Logger;
  /** Poll interval of the sample source. @defaultValue 5000 */
  intervalMs?: number;
  /** Port of the reconciler's HTTP server (health, webhooks). @defaultValue 0 (any free port) */
  httpPort?: number;
  /** Webhook secret for the sample source (GitHub-style HMAC). */
  webhookSecret?: string;
  /**
   * controllers runs the control plane with kube-controller-manager, kube-scheduler and KWOK
   * nodes, so Deployments roll out and pods run as on a real cluster. @defaultValue true
   */
  controllers?: boolean;
}

/** startLocalStack starts the embedded stack, pushes the sample repository and starts the reconciler on it. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const redis = await startRedis();
  const plane = await startControlPlane({ name: 'local', controllers: options.controllers ?? true });
  const git = await startGitServer();
  const remote = await git.createRepository('sample');
  const repo = await git.workingCopy('sample');
  for (const entry of await readdir(options.sampleDir)) await cp(join(options.sampleDir, entry), join(repo.dir, entry), { recursive: true });
  await repo.commitAndPush('Sample repository');

  await mkdir(options.workDir, { recursive: true });
  const configPath = join(options.workDir, 'tidemark.yaml');
  await writeFile(configPath, stringify({
    redis: { url: redis.url },
    cacheDir: join(options.workDir, 'cache'),
    sources: [{ name: 'sample', url: remote, ref: { branch: 'main' }, intervalMs: options.intervalMs ?? 5_000, jitter: 0.1 }],
    clusters: [{ name: 'local', kubeconfig: plane.kubeconfigPath, labels: { env: 'dev' } }],
    http: { port: options.httpPort ?? 0, host: '127.0.0.1' },
    // The pinned kustomize, helm and sops that scripts/setup builds.
    render: { toolsDir: renderToolsDir },
    ...(options.webhookSecret ? { webhooks: [{ source: 'sample', provider: 'github', secret: { env: 'TIDEMARK_SAMPLE_WEBHOOK_SECRET' } }] } : {}),
  }));
  const config = loadConfig({ TIDEMARK_CONFIG: configPath, TIDEMARK_SAMPLE_WEBHOOK_SECRET: options.webhookSecret ?? '', TIDEMARK_LOG_LEVEL: 'info' });
  const reconciler = await startReconciler(config, options.log);
  return {
    redis, plane, git, remote, repo, config, reconciler,
    async stop() {
      await reconciler.stop();
      await git.stop();
      await plane.stop();
      await redis.stop();
    },
  };
}
