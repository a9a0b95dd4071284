import type { Cluster } from 'ioredis';
import { needsHashTag, openRedisClient, openRedisSubscriber, PreviewQueue, probeRedis, ReconcileQueues, redisPrefix } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { buildDashboard } from './build-app';
import { unwatchFile, watchFile } from 'node:fs';
import { loadConfig, reloadTokens, type DashboardConfig } from './config';
import { readFileSync } from 'node:fs';
import { ClusterConnection } from '@tidemark/cluster';
import { messageOf } from '@tidemark/contracts';

/** main starts the dashboard and stops it, in reverse order, on SIGINT or SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  // One bounded attempt first: a refused certificate or an unreachable Redis ends start-up with a
  // clear error, before the clients below, which reconnect forever, are opened.
  await probeRedis(config.redis);
  const redis = openRedisClient(config.redis, { lazyConnect: true });
  // A connection of its own that says `ready` whenever it connected again (on a Redis Cluster too):
  // the status cache then reloads what it may have missed.
  const subscriber = openRedisSubscriber(config.redis, { lazyConnect: true }, 'cluster' in config.redis ? redis as Cluster : undefined);
  // Both reconnect by themselves; a lost connection is a warning in the log (through the app's logger
  // once it exists), not ioredis's "Unhandled error event" on stderr.
  let warn = (fields: Record<string, string>, message: string): void => {
    process.stderr.write(`${message} ${JSON.stringify(fields)}\n`);
  };
  redis.on('error', (error: Error) => warn({ connection: 'redis', err: error.message }, 'redis connection error; reconnecting'));
  subscriber.on('error', (error: Error) => warn({ connection: 'subscriber', err: error.message }, 'redis connection error; reconnecting'));
  await Promise.all([redis.connect(), subscriber.connect()]);
  // On a Redis Cluster every key carries the hash tag {prefix}, as the reconciler writes them.
  const hashTag = needsHashTag(config.redis);
  const statusStore = new StatusStore({ redis, prefix: redisPrefix({ prefix: config.redisPrefix, hashTag }) });
  const clusters = [...new Set([...config.clusters, ...(await statusStore.clusters())])];
  const queues = new ReconcileQueues({ connection: redis, prefix: config.redisPrefix, hashTag, clusters });
  await queues.start();
  const previews = new PreviewQueue({ connection: redis, prefix: config.redisPrefix, hashTag });
  await previews.start();
  const clusterConnections = connectClusters(config);
  const app = await buildDashboard({
    statusStore, queues, previews, redis, subscriber, clusters, logger: true, clusterConnections, sourceIdentities: new Map(Object.entries(config.sourceIdentities)), ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}), trustedProxies: config.trustedProxies, auditMaxRecords: config.auditMaxRecords, ...(config.traceUrl ? { traceUrl: config.traceUrl } : {}),
    auth: { tokens: config.tokens, sessionSecret: config.sessionSecret, secureCookies: config.secureCookies, ...(config.oidc ? { oidc: config.oidc } : {}) },
  });
  warn = (fields, message) => {
    app.log.warn(fields, message);
  };
  if (config.sessionSecretGenerated) app.log.warn('TIDEMARK_DASHBOARD_SESSION_SECRET is not set: sessions end when this process restarts.');
  await app.listen({ host: config.host, port: config.port });
  const tokensFile = config.tokensFile;
  if (tokensFile) {
    // A token removed from or changed in the file ends its sessions within seconds, without a restart.
    watchFile(tokensFile, { interval: 2_000 }, () => {
      try {
        void app.replaceTokens(reloadTokens(tokensFile)).then((ended) => app.log.info({ ended }, 'tokens reloaded'), (error: unknown) => app.log.error({ err: String(error) }, 'ending sessions after a token reload failed'));
      } catch (error) {
        app.log.error({ err: messageOf(error) }, 'the tokens file is invalid; the previous tokens stay in force');
      }
    });
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    if (tokensFile) unwatchFile(tokensFile);
    await app.close();
    await queues.close();
    await previews.close();
    await Promise.all([redis.quit(), subscriber.quit()]);
    for (const connection of clusterConnections.values()) connection.close();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/** connectClusters opens (lazily) the dashboard's own connections for day-2 actions; the kubeconfig rules are the reconciler's (no exec plugins). */
function connectClusters(config: DashboardConfig): Map<string, ClusterConnection> {
  const connections = new Map<string, ClusterConnection>();
  for (const [cluster, path] of Object.entries(config.kubeconfigs)) {
    connections.set(cluster, ClusterConnection.connect({ cluster, kubeconfig: readFileSync(path, 'utf8'), fieldManager: 'tidemark-dashboard' }));
  }
  if (config.inCluster) connections.set(config.inCluster, ClusterConnection.inCluster(config.inCluster, 'tidemark-dashboard'));
  return connections;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
