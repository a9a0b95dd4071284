import { randomBytes } from 'node:crypto';
import { chmod, cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { Logger } from 'pino';
import { startControlPlane, startGitServer, startRedis, type ControlPlane, type GitServer, type TestRedis, type WorkingCopy, renderToolsDir } from '@tidemark/testing';
import { loadConfig, type ReconcilerConfig } from '../apps/reconciler/src/config';
import { startReconciler, type RunningReconciler } from '../apps/reconciler/src/reconciler';

// The local developer stack: what `scripts/tidemark-local` (scripts/local.ts) runs, and what the
// end-to-end suites start. It is not part of the production app, which never imports the rig.

const pushHook = fileURLToPath(new URL('git-push-hook.mjs', import.meta.url));

/** LocalServices is Tidemark on embedded defaults, on a cluster given by its kubeconfig: a local Redis and Git server. */
export interface LocalServices {
  redis: TestRedis;
  git: GitServer;
  /** The sample repository's clone URL, to `git clone` and push to. */
  remote: string;
  repo: WorkingCopy;
  /** The kubeconfig of the cluster the sample is reconciled into. */
  kubeconfigPath: string;
  config: ReconcilerConfig;
  reconciler: RunningReconciler;
  /** stop ends the reconciler first (its workers, then its Redis clients), then the services it used; each step is bounded. */
  stop(): Promise<void>;
}

/** LocalStack is LocalServices on a local control plane of its own. */
export interface LocalStack extends LocalServices {
  plane: ControlPlane;
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
  /**
   * Webhook secret of the sample source (GitHub-style HMAC). The Git server's post-receive hook
   * announces every push with it. @defaultValue a random one
   */
  webhookSecret?: string;
  /**
   * controllers runs the control plane with kube-controller-manager, kube-scheduler and KWOK
   * nodes, so Deployments roll out and pods run as on a real cluster. @defaultValue true
   */
  controllers?: boolean;
}

/** How long each stop step may take before the next one runs anyway. */
const stopStepMs = 5_000;

/** startLocalStack starts a local control plane and the local services on it. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const plane = await startControlPlane({ name: 'local', controllers: options.controllers ?? true });
  try {
    const services = await startLocalServices({ ...options, kubeconfigPath: plane.kubeconfigPath });
    return {
      ...services, plane,
      async stop() {
        await services.stop();
        await bounded('the control plane', plane.stop(), options.log);
      },
    };
  } catch (error) {
    await plane.stop();
    throw error;
  }
}

/**
 * startLocalServices starts Redis and the Git server, pushes the sample repository and starts the
 * reconciler on it, into the cluster of `kubeconfigPath` (an existing one, or a local control plane).
 */
export async function startLocalServices(options: LocalStackOptions & { kubeconfigPath: string }): Promise<LocalServices> {
  const [redis, git] = await Promise.all([startRedis(), startGitServer()]);
  const remote = await git.createRepository('sample');
  const repo = await git.workingCopy('sample');
  for (const entry of await readdir(options.sampleDir)) await cp(join(options.sampleDir, entry), join(repo.dir, entry), { recursive: true });
  await repo.commitAndPush('Sample repository');

  await mkdir(options.workDir, { recursive: true });
  const configPath = join(options.workDir, 'tidemark.yaml');
  const webhookSecret = options.webhookSecret ?? randomBytes(24).toString('hex');
  await writeFile(configPath, stringify({
    redis: { url: redis.url },
    cacheDir: join(options.workDir, 'cache'),
    sources: [{ name: 'sample', url: remote, ref: { branch: 'main' }, intervalMs: options.intervalMs ?? 5_000, jitter: 0.1 }],
    clusters: [{ name: 'local', kubeconfig: options.kubeconfigPath, labels: { env: 'dev' } }],
    http: { port: options.httpPort ?? 0, host: '127.0.0.1' },
    // The pinned kustomize, helm and sops that scripts/setup builds.
    render: { toolsDir: renderToolsDir },
    webhooks: [{ source: 'sample', provider: 'github', secret: { env: 'TIDEMARK_SAMPLE_WEBHOOK_SECRET' } }],
  }));
  const config = loadConfig({ TIDEMARK_CONFIG: configPath, TIDEMARK_SAMPLE_WEBHOOK_SECRET: webhookSecret, TIDEMARK_LOG_LEVEL: 'info' });
  const reconciler = await startReconciler(config, options.log);
  await announcePushes(git, 'sample', `http://${reconciler.http.address}/hooks/sample`, webhookSecret);
  return {
    redis, git, remote, repo, kubeconfigPath: options.kubeconfigPath, config, reconciler,
    async stop() {
      // The workers stop while Redis still answers; should Redis be gone already (a terminal's
      // Ctrl-C reaches redis-server too), the step is cut short rather than waited on.
      await bounded('the reconciler', reconciler.stop(), options.log);
      await bounded('the Git server', git.stop(), options.log);
      await bounded('Redis', redis.stop(), options.log);
    },
  };
}

/**
 * announcePushes installs a post-receive hook in a repository of the Git server that sends each
 * pushed branch to the reconciler's webhook, signed with the source's secret (kept in a file
 * beside the repository, owner-only, in the server's private temporary folder).
 */
async function announcePushes(git: GitServer, repository: string, url: string, secret: string): Promise<void> {
  const dir = join(git.root, `${repository}.git`);
  const secretFile = join(dir, 'tidemark-webhook-secret');
  await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
  const hook = join(dir, 'hooks', 'post-receive');
  await writeFile(hook, `#!/bin/sh\nexec ${[process.execPath, pushHook, url, secretFile].map(shellQuote).join(' ')}\n`);
  await chmod(hook, 0o755);
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** bounded waits for a stop step at most stopStepMs, then lets the next step run (logging the overrun). */
async function bounded(what: string, step: Promise<void>, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const overran = new Promise<'overran'>((resolve) => { timer = setTimeout(() => resolve('overran'), stopStepMs); });
  const outcome = await Promise.race([step.then(() => 'done' as const, (error: unknown) => { log.warn({ err: String(error) }, `stopping ${what} failed`); return 'done' as const; }), overran]);
  clearTimeout(timer);
  if (outcome === 'overran') log.warn(`stopping ${what} took more than ${stopStepMs / 1000} s; going on without waiting`);
}
