// A one-commit install of Flux's own manifests (10 CRDs, a Namespace, RBAC, Services, Deployments)
// plus a custom resource of each CRD: Tidemark, from `git push` until every object is applied at
// that revision, against `kubectl apply --server-side` of the same two files run again until it
// succeeds (its first try fails on the custom resources, whose CRDs it has only just created).
// Both on a fresh API server of their own, started in the same run.
//   npx tsx bench/flux-install.bench.ts [--rounds 3]
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { formatObjectKey, groupOf, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl, startControlPlanes, startGitServer, startRedis, type ControlPlane } from '@tidemark/testing';
import { loadConfig } from '../apps/reconciler/src/config';
import { createLogger } from '../apps/reconciler/src/logger';
import { startReconciler } from '../apps/reconciler/src/reconciler';
import { figure, printFigures, say } from './support/figures';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const fixtures = fileURLToPath(new URL('../test/ordering/fixtures/flux/', import.meta.url));
const files = ['gotk-components.yaml', 'custom-resources.yaml'];
const texts = await Promise.all(files.map((file) => readFile(join(fixtures, file), 'utf8')));
const keys = texts.flatMap((text) => parseAllDocuments(text).map((document) => document.toJS() as KubernetesManifest | null))
  .filter((object): object is KubernetesManifest => object !== null)
  .map((object) => formatObjectKey({ group: groupOf(object.apiVersion), kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name }));

/** kubectlUntilSuccess applies both files server-side, again and again until kubectl exits 0. */
async function kubectlUntilSuccess(plane: ControlPlane): Promise<{ ms: number; tries: number }> {
  const started = performance.now();
  for (let tries = 1; ; tries += 1) {
    const ok = await kubectl(plane.kubeconfigPath, ['apply', '--server-side', ...files.flatMap((file) => ['-f', join(fixtures, file)])]).then(() => true, () => false);
    if (ok) return { ms: performance.now() - started, tries };
    if (tries >= 100) throw new Error('kubectl apply --server-side did not succeed in 100 tries');
  }
}

/** tidemarkInstall pushes both files in one commit to a running reconciler and waits until every object is applied at it. */
async function tidemarkInstall(plane: ControlPlane, redisUrl: string, round: number): Promise<number> {
  const git = await startGitServer();
  const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-flux-'));
  try {
    const url = await git.createRepository('flux');
    const repo = await git.workingCopy('flux');
    await repo.write('README.md', 'flux\n');
    await repo.commitAndPush('start');
    const configPath = join(workDir, 'tidemark.yaml');
    await writeFile(configPath, stringify({
      redis: { url: redisUrl, prefix: `flux${round}` }, cacheDir: join(workDir, 'cache'), http: { port: 0, host: '127.0.0.1' },
      sources: [{ name: 'flux', url, ref: { branch: 'main' }, intervalMs: 1_000, jitter: 0 }],
      clusters: [{ name: 'bench', kubeconfig: plane.kubeconfigPath }],
      conversionWebhook: { host: '127.0.0.1', port: 0 },
    }));
    const reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('fatal'));
    try {
      for (const [index, file] of files.entries()) await repo.write(`flux-system/${file}`, texts[index]!);
      const started = performance.now();
      const revision = await repo.commitAndPush('Flux and one custom resource of each kind');
      for (;;) {
        const records = await Promise.all(keys.map((key) => reconciler.statusStore.get('bench', key)));
        if (records.every((record) => record?.lastAppliedRevision === revision)) return performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await reconciler.stop();
    }
  } finally {
    await git.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

const redis = await startRedis();
try {
  const tidemark: number[] = [];
  const baseline: number[] = [];
  const tries: number[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    // Two fresh API servers a round: nothing of an earlier round is there to help either side.
    const [forKubectl, forTidemark] = await startControlPlanes(2, `flux-bench-${round}`) as [ControlPlane, ControlPlane];
    try {
      const kubectlRun = await kubectlUntilSuccess(forKubectl);
      baseline.push(kubectlRun.ms);
      tries.push(kubectlRun.tries);
      tidemark.push(await tidemarkInstall(forTidemark, redis.url, round));
      say(`round ${round}: kubectl ${Math.round(kubectlRun.ms)} ms in ${kubectlRun.tries} tries, tidemark ${Math.round(tidemark.at(-1)!)} ms for ${keys.length} objects`);
    } finally {
      await Promise.all([forKubectl.stop(), forTidemark.stop()]);
    }
  }
  const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  printFigures('flux-install', [
    figure(`git push of the Flux install + ${keys.length - 31} custom resources (${keys.length} objects) until all applied, median of ${rounds}`, 'ms', median(tidemark), 'kubectl apply --server-side of the same files, run until it succeeds', median(baseline)),
  ], { kubectlTries: tries });
} finally {
  await redis.stop();
}
