// Runs Tidemark on embedded defaults: local Redis, a local kube-apiserver, and a Git server
// holding examples/sample-repo. It prints where to push and how to look, then runs until Ctrl-C.
import { fileURLToPath } from 'node:url';
import { createLogger } from '../apps/reconciler/src/logger';
import { startLocalStack } from '../apps/reconciler/src/local/local-stack';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = createLogger(process.env.TIDEMARK_LOG_LEVEL ?? 'info');
const say = (line: string) => process.stderr.write(`${line}\n`);

say('tidemark: starting Redis, a local control plane and a Git server with the sample repository…');
const stack = await startLocalStack({ workDir: `${root}.tidemark/local`, sampleDir: `${root}examples/sample-repo`, log });
const kubectl = `${root}test/kube-testenv/bin/kube-testenv kubectl --kubeconfig ${stack.plane.kubeconfigPath}`;
say('');
say('Tidemark is reconciling the sample repository into the local control plane.');
say(`  Git remote (push here):   git clone ${stack.remote}`);
say(`  kubeconfig:               ${stack.plane.kubeconfigPath}`);
say(`  kubectl:                  ${kubectl} get webapps,configwatchers,deployments -A`);
say(`  health:                   http://${stack.reconciler.http.address}/healthz`);
say('Press Ctrl-C to stop.');
say('');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    say('tidemark: stopping…');
    void stack.stop().then(() => process.exit(0));
  });
}
