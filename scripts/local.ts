// Runs Tidemark on embedded defaults: local Redis, a local kube-apiserver, and a Git server
// holding examples/sample-repo. It prints where to push and how to look, then runs until Ctrl-C.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { buildDashboard } from '../apps/dashboard/src/build-app';
import { createLogger } from '../apps/reconciler/src/logger';
import { startLocalStack } from './local-stack';
import { PreviewQueue } from '@tidemark/queue';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = createLogger(process.env.TIDEMARK_LOG_LEVEL ?? 'info');
const say = (line: string) => process.stderr.write(`${line}\n`);

say('tidemark: starting Redis, a local control plane and a Git server with the sample repository…');
const stack = await startLocalStack({ workDir: `${root}.tidemark/local`, sampleDir: `${root}examples/sample-repo`, log });
const kubectl = `${root}test/kube-testenv/bin/kube-testenv kubectl --kubeconfig ${stack.plane.kubeconfigPath}`;

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
const cliConfig = `${root}.tidemark/local/cli.json`;
await writeFile(cliConfig, JSON.stringify({ server: dashboardUrl, token }), { mode: 0o600 });
say('');
say('Tidemark is reconciling the sample repository into the local control plane.');
say(`  Git remote (push here):   git clone ${stack.remote}`);
say(`  kubeconfig:               ${stack.plane.kubeconfigPath}`);
say(`  kubectl:                  ${kubectl} get webapps,configwatchers,deployments -A`);
say(`  dashboard:                ${dashboardUrl}  (sign in with token ${token})`);
say(`  command line:             TIDEMARK_CONFIG=${cliConfig} npx tidemark status`);
say(`  health:                   http://${stack.reconciler.http.address}/healthz`);
say('Press Ctrl-C to stop.');
say('');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    say('tidemark: stopping…');
    void dashboard.close()
      .then(() => previews.close())
      .then(() => { redis.disconnect(); subscriber.disconnect(); })
      .then(() => stack.stop())
      .then(() => process.exit(0));
  });
}
