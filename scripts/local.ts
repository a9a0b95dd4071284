// Runs Tidemark on embedded defaults: local Redis, a local kube-apiserver, and a Git server
// holding examples/sample-repo. It prints where to push and how to look, then runs until Ctrl-C.
// With TIDEMARK_KUBECONFIG (scripts/tidemark-local --kubeconfig PATH) it reconciles into that
// existing cluster instead, and starts no control plane.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { buildDashboard } from '../apps/dashboard/src/build-app';
import { createLogger } from '../apps/reconciler/src/logger';
import { startLocalServices, startLocalStack, type LocalServices } from './local-stack';
import { PreviewQueue } from '@tidemark/queue';
import { messageOf } from '@tidemark/contracts';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = createLogger(process.env.TIDEMARK_LOG_LEVEL ?? 'info');
const say = (line: string) => process.stderr.write(`${line}\n`);

const existingCluster = process.env.TIDEMARK_KUBECONFIG;
// TIDEMARK_LOCAL_DIR: where the run's config, Git cache and CLI config go (tests use a folder of their own).
const workDir = process.env.TIDEMARK_LOCAL_DIR ?? `${root}.tidemark/local`;
const options = { workDir, sampleDir: `${root}examples/sample-repo`, log };
let stack: LocalServices;
let kubectl: string;
if (existingCluster) {
  say(`tidemark: starting Redis and a Git server with the sample repository, for the cluster of ${existingCluster}…`);
  stack = await startLocalServices({ ...options, kubeconfigPath: existingCluster });
  kubectl = `kubectl --kubeconfig ${existingCluster}`;
} else {
  say('tidemark: starting Redis, a local control plane and a Git server with the sample repository…');
  stack = await startLocalStack(options);
  kubectl = `${root}test/kube-testenv/bin/kube-testenv kubectl --kubeconfig ${stack.kubeconfigPath}`;
}

// The dashboard on the same Redis, with one operator token made for this run.
const token = randomBytes(24).toString('hex');
const redis = new Redis(stack.redis.url);
const subscriber = new Redis(stack.redis.url);
// `tidemark preview` and the dashboard ask for previews on this queue; the reconciler's workers run them.
const previews = new PreviewQueue({ connection: stack.redis.url });
await previews.start();
const dashboard = await buildDashboard({
  statusStore: stack.reconciler.statusStore, queues: stack.reconciler.queues, previews, redis, subscriber,
  clusters: ['local'], sources: ['sample'],
  auth: { tokens: [{ name: 'local', role: 'operator', token }], sessionSecret: randomBytes(32).toString('hex') },
});
const dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: Number(process.env.TIDEMARK_DASHBOARD_PORT ?? 8080) })
  .catch(() => dashboard.listen({ host: '127.0.0.1', port: 0 }));
// The `tidemark` command's config for this run: the dashboard's address and the run's token, owner-only.
const cliConfig = `${workDir}/cli.json`;
await writeFile(cliConfig, JSON.stringify({ server: dashboardUrl, token }), { mode: 0o600 });
say('');
say(`Tidemark is reconciling the sample repository into ${existingCluster ? 'your cluster' : 'the local control plane'}.`);
say(`  Git remote (push here):   git clone ${stack.remote}   (each push is announced to the reconciler at once)`);
say(`  kubeconfig:               ${stack.kubeconfigPath}`);
say(`  kubectl:                  ${kubectl} get webapps,configwatchers,deployments -A`);
say(`  dashboard:                ${dashboardUrl}  (sign in with token ${token})`);
say(`  command line:             TIDEMARK_CONFIG=${cliConfig} npx tidemark status`);
say(`  health:                   http://${stack.reconciler.http.address}/healthz`);
say('Press Ctrl-C to stop.');
say('');

// A terminal's Ctrl-C reaches this process, Redis and the control plane at once, so every step is
// bounded (see LocalServices.stop) and the whole stop too. npm forwards the signal once more, so
// only a second Ctrl-C a moment later ends the run at once.
const stopWithinMs = 8_000;
let stopping: number | undefined;
const stop = async () => {
  await Promise.race([dashboard.close(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  await previews.close();
  redis.disconnect();
  subscriber.disconnect();
  await stack.stop();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping !== undefined) {
      if (Date.now() - stopping < 1_000) return;
      say('tidemark: stopped at once (second Ctrl-C)');
      process.exit(130);
    }
    stopping = Date.now();
    say('tidemark: stopping…');
    setTimeout(() => {
      say(`tidemark: not stopped within ${stopWithinMs / 1000} s; ending Redis, the Git server and the control plane, and exiting`);
      killChildren();
      process.exit(1);
    }, stopWithinMs).unref();
    void stop().then(() => process.exit(0), (error: unknown) => {
      say(`tidemark: stopping failed: ${messageOf(error)}`);
      process.exit(1);
    });
  });
}

/** killChildren ends this process's own children (redis-server, the control plane, git), so none outlives a stop that overran. */
function killChildren(): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat = '';
    try { stat = readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }
    // The fields after the command's closing parenthesis: state, ppid, …
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    try { process.kill(Number(entry), 'SIGKILL'); } catch { /* gone already */ }
  }
}
