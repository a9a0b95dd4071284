// Rollouts in waves over four clusters: how long N objects take to reach every cluster through four
// one-cluster waves (health gates, no soak), against the same push with no policy in the same run (the
// gates' overhead), and how soon the next wave starts once a gate passed: from the wave's last status
// write to the driver reaching the next wave (its jobs enqueued), and to the next wave's first status
// write (its first apply done). Goal: gate to next wave reached ≤ 1 s.
//   npx tsx bench/rollout.bench.ts [--objects 30]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, listObjects } from '@tidemark/cluster';
import { parseStatusChange, RecordKeys } from '@tidemark/contracts';
import { startControlPlanes, startGitServer, startRedis, type ControlPlane } from '@tidemark/testing';
import { loadConfig } from '../apps/reconciler/src/config';
import { createLogger } from '../apps/reconciler/src/logger';
import { startReconciler } from '../apps/reconciler/src/reconciler';
import { figure, percentile, printFigures, round, sortedCopy } from './support/figures';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '30' } } });
const objects = Number(values.objects);
const say = (line: string) => process.stderr.write(`rollout: ${line}\n`);
const names = ['canary', 'staging', 'prod-a', 'prod-b'];

const planes: ControlPlane[] = await startControlPlanes(names.length, 'bench-rollout');
const redis = await startRedis();
const git = await startGitServer();
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-rollout-'));
const connections = names.map((name, index) => ClusterConnection.connect({ cluster: name, kubeconfig: planes[index]!.kubeconfig }));

interface Run {
  totalMs: number;
  /** Per wave after the first: its reach after the previous wave's last status write, and its first status write after that. */
  gates: { toReachMs: number; toFirstApplyMs: number }[];
}

/** everywhere runs one reconciler on a fresh repository and namespace until every cluster has every object. */
async function everywhere(phase: string, waves: boolean): Promise<Run> {
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
    clusters: names.map((name, index) => ({ name, labels: { name }, kubeconfig: planes[index]!.kubeconfigPath })),
    ...(waves ? { rollouts: [{ source: phase, waves: names.map((name) => ({ name, clusterSelector: { matchLabels: { name } } })) }] } : {}),
  }));
  // Every status write, by cluster, with when it was seen.
  const writes: { cluster: string; at: number }[] = [];
  const reaches: { cluster: string; at: number }[] = [];
  const subscriber = new Redis(redis.url);
  subscriber.on('message', (_channel: string, message: string) => {
    const change = parseStatusChange(message);
    if (change) writes.push({ cluster: change.cluster, at: performance.now() });
  });
  await subscriber.subscribe(new RecordKeys(phase).statusChanges);
  const started = performance.now();
  const reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: configPath }), createLogger('fatal'), {
    rollouts: { onReach: (_source, clusters) => clusters.forEach((cluster) => reaches.push({ cluster, at: performance.now() })) },
  });
  const count = async (connection: ClusterConnection) => (await listObjects(connection, 'v1', 'ConfigMap', phase).catch(() => [])).filter((item) => item.metadata.name.startsWith('cm-')).length;
  while ((await Promise.all(connections.map(count))).some((found) => found < objects)) await new Promise((resolve) => setTimeout(resolve, 50));
  const totalMs = performance.now() - started;
  await reconciler.stop();
  subscriber.disconnect();
  const gates: Run['gates'] = [];
  if (waves) {
    for (let wave = 1; wave < names.length; wave += 1) {
      const reached = reaches.find((reach) => reach.cluster === names[wave])!.at;
      const gatePassed = Math.max(...writes.filter((write) => write.cluster === names[wave - 1] && write.at <= reached).map((write) => write.at));
      const firstApply = Math.min(...writes.filter((write) => write.cluster === names[wave] && write.at >= reached).map((write) => write.at));
      gates.push({ toReachMs: reached - gatePassed, toFirstApplyMs: firstApply - gatePassed });
    }
  }
  return { totalMs, gates };
}

try {
  say(`${objects} objects to four clusters at once, no policy`);
  const atOnce = await everywhere('at-once', false);
  say(`the same through four one-cluster waves`);
  const inWaves = await everywhere('in-waves', true);
  const toReach = sortedCopy(inWaves.gates.map((gate) => gate.toReachMs));
  const toApply = sortedCopy(inWaves.gates.map((gate) => gate.toFirstApplyMs));
  say(`at once ${Math.round(atOnce.totalMs)} ms, in waves ${Math.round(inWaves.totalMs)} ms; gate to next wave reached ${toReach.map((ms) => round(ms)).join(', ')} ms, to its first apply ${toApply.map((ms) => round(ms)).join(', ')} ms`);
  printFigures('rollout', [
    figure(`${objects} objects on 4 clusters through 4 waves (gates, no soak)`, 'ms', inWaves.totalMs, 'the same push with no rollout policy, same run', atOnce.totalMs),
    figure('gate passed to next wave reached, worst of 3', 'ms', percentile(toReach, 1), 'goal', 1000),
    figure('gate passed to next wave\'s first apply done, worst of 3', 'ms', percentile(toApply, 1), 'goal', 1000),
  ]);
} finally {
  connections.forEach((connection) => connection.close());
  await git.stop();
  await redis.stop();
  await Promise.all(planes.map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
}
