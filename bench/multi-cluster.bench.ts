// Multi-cluster isolation: how long one healthy cluster takes to get N objects when it is the
// only target (baseline 1), when the same objects also go to two healthy clusters (baseline 2:
// the CPU cost of the extra work in one process), and when they go to a stopped cluster and to
// one behind a slow link instead, in the same run. troubled/trio near 1 means the bad clusters
// hold nothing up beyond the work itself; troubled/alone adds that work's cost.
//   npx tsx bench/multi-cluster.bench.ts [--objects 100] [--delay-ms 150]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { ClusterConnection, listObjects } from '@tidemark/cluster';
import { startControlPlanes, startDelayingProxyProcess, startGitServer, startRedis, type ControlPlane } from '@tidemark/testing';
import { loadConfig } from '../apps/reconciler/src/config';
import { createLogger } from '../apps/reconciler/src/logger';
import { startReconciler } from '../apps/reconciler/src/reconciler';
import { figure, printFigures } from './support/figures';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '100' }, 'delay-ms': { type: 'string', default: '150' } } });
const objects = Number(values.objects);
const delayMs = Number(values['delay-ms']);
const say = (line: string) => process.stderr.write(`multi-cluster: ${line}\n`);

const planes: ControlPlane[] = await startControlPlanes(3, 'bench');
const [east, west, lab] = planes as [ControlPlane, ControlPlane, ControlPlane];
const redis = await startRedis();
const git = await startGitServer();
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-mc-'));
const proxy = await startDelayingProxyProcess(Number(new URL(lab.server).port), 0);
const labKubeconfig = join(workDir, 'lab.kubeconfig');
await writeFile(labKubeconfig, lab.kubeconfig.replace(lab.server, `https://127.0.0.1:${proxy.port}`));
const eastConnection = ClusterConnection.connect({ cluster: 'east', kubeconfig: east.kubeconfig });

/** timeToEast runs one reconciler on a fresh repository and namespace, until east has every object. */
async function timeToEast(phase: string, clusters: { name: string; kubeconfig: string }[]): Promise<number> {
  const url = await git.createRepository(phase);
  const repo = await git.workingCopy(phase);
  await repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: phase } }));
  for (let index = 0; index < objects; index += 1) {
    await repo.write(`cm/${index}.yaml`, stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${index}`, namespace: phase }, data: { index: String(index) } }));
  }
  await repo.commitAndPush(phase);
  const configPath = join(workDir, `${phase}.yaml`);
  await writeFile(configPath, stringify({
    redis: { url: redis.url, prefix: phase }, cacheDir: join(workDir, phase), http: { port: 0, host: '127.0.0.1' },
    sources: [{ name: phase, url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters, healthCheck: { intervalMs: 500, timeoutMs: 2_000, failureThreshold: 2 },
  }));
  const started = performance.now();
  const reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('fatal'));
  while ((await listObjects(eastConnection, 'v1', 'ConfigMap', phase).catch(() => [])).filter((item) => item.metadata.name.startsWith('cm-')).length < objects) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const elapsed = performance.now() - started;
  await reconciler.stop();
  return elapsed;
}

try {
  say(`baseline: ${objects} objects to east alone`);
  const alone = await timeToEast('alone', [{ name: 'east', kubeconfig: east.kubeconfigPath }]);
  const everyone = [
    { name: 'east', kubeconfig: east.kubeconfigPath },
    { name: 'west', kubeconfig: west.kubeconfigPath },
    { name: 'lab', kubeconfig: labKubeconfig },
  ];
  say('beside two healthy clusters');
  const trio = await timeToEast('trio', everyone);
  await west.halt();
  proxy.setDelay(delayMs);
  say(`with west stopped and lab behind a ${delayMs} ms link`);
  const troubled = await timeToEast('troubled', everyone);
  say(`east alone ${Math.round(alone)} ms, beside two healthy clusters ${Math.round(trio)} ms, beside a stopped and a slow one ${Math.round(troubled)} ms`);
  const name = `east: ${objects} objects until present, beside a stopped and a ${delayMs} ms-slow cluster`;
  printFigures('multi-cluster', [figure(name, 'ms', troubled, 'east beside two healthy clusters, same run', trio), figure(name, 'ms', troubled, 'east alone, same run', alone)]);
} finally {
  eastConnection.close();
  await proxy.stop();
  await git.stop();
  await redis.stop();
  await Promise.all(planes.map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
}
