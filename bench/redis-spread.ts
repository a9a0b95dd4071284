// How a Redis Cluster's primaries share Tidemark's load with three target clusters: per primary,
// the commands Redis counted (INFO commandstats) while each cluster's queue runs 200 jobs whose
// handler writes and reads a status record and its history, as the pipeline does once a run.
// Run it from a checkout (or a previous release's tree, to compare layouts):
//   npx tsx bench/redis-spread.ts [--objects 200]
// It starts its own six-node Redis Cluster (three primaries, a replica each) and prints a table.
import { Cluster } from 'ioredis';
import type { ObjectStatus } from '@tidemark/contracts';
import { ReconcileQueues, ReconcileWorkers, redisPrefix } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { startRedisCluster } from '@tidemark/testing';

const objects = Number(process.argv[process.argv.indexOf('--objects') + 1] || 200) || 200;
const clusters = ['east', 'west', 'north'];
const prefix = 'spread';

function statusOf(cluster: string, objectKey: string): ObjectStatus {
  return { cluster, objectKey, source: 'apps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: objectKey, lastAppliedRevision: 'r1', conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}

/** commandCalls sums the calls of every command a node counted since its last CONFIG RESETSTAT. */
function commandCalls(info: string): number {
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

const redisCluster = await startRedisCluster({ masters: 3, replicas: 1 });
const nodes = redisCluster.nodes;
const redis = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } });
try {
  const connection = redis;
  const queues = new ReconcileQueues({ connection, prefix, hashTag: true, clusters });
  const workers = new ReconcileWorkers({ connection, prefix, hashTag: true, clusters, defaults: { concurrency: 4 }, onError: () => undefined });
  const store = new StatusStore({ redis, prefix: redisPrefix({ prefix, hashTag: true }) });
  await queues.start();
  let done = 0;
  await workers.start(async (job) => {
    await store.get(job.cluster, job.objectKey);
    await store.record(job.cluster, job.objectKey, statusOf(job.cluster, job.objectKey), { revision: job.revision, result: 'succeeded', startedAt: new Date().toISOString(), durationMs: 1 });
    done += 1;
    return { kind: 'done' };
  });
  const primaries = redis.nodes('master');
  for (const node of redis.nodes('all')) await node.config('RESETSTAT');
  for (const cluster of clusters) {
    for (let index = 0; index < objects; index += 1) {
      await queues.enqueue({ source: 'apps', revision: 'a'.repeat(40), cluster, objectKey: `core/ConfigMap/apps/config-${index}`, reason: 'git-change' });
    }
  }
  while (done < objects * clusters.length) await new Promise((resolve) => setTimeout(resolve, 100));
  const rows = await Promise.all(primaries.map(async (node) => ({ port: node.options.port, calls: commandCalls(await node.info('commandstats')) })));
  const total = rows.reduce((sum, row) => sum + row.calls, 0);
  const tags = await Promise.all([redisPrefix({ prefix, hashTag: true }), ...clusters.map((cluster) => `{${prefix}.${cluster}}`)].map(async (tag) => `${tag}→${await redisCluster.primaryPortOf(tag)}`));
  console.log(`${objects} jobs on each of ${clusters.join(', ')}; tags: ${tags.join(' ')}`);
  console.log('| primary | commands | share |');
  console.log('|---|---|---|');
  for (const row of rows.sort((a, b) => (a.port ?? 0) - (b.port ?? 0))) console.log(`| ${row.port} | ${row.calls} | ${((100 * row.calls) / total).toFixed(1)} % |`);
  await workers.close();
  await queues.close();
} finally {
  redis.disconnect();
  await redisCluster.stop();
}
