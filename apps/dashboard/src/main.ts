import type { Cluster } from 'ioredis';
import { needsHashTag, openRedisClient, openRedisSubscriber, PreviewQueue, probeRedis, ReconcileQueues, redisPrefix } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { buildDashboard } from './build-app';
import { unwatchFile, watchFile } from 'node:fs';
import { loadConfig, reloadTokens, type DashboardConfig } from './config';
import { readFileSync } from 'node:fs';
import { ClusterConnection } from '@tidemark/cluster';
import { messageOf, runnable, Runnables } from '@tidemark/contracts';

/** Log is where start-up says what goes wrong: stderr, then the app's logger once it exists. */
interface Log {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** main starts the dashboard's parts in order and stops them in reverse, on SIGINT or SIGTERM (or when one fails to start). */
async function main(): Promise<void> {
  const config = loadConfig();
  // Both Redis connections reconnect by themselves; a lost connection is a warning in the log (through
  // the app's logger once it exists), not ioredis's "Unhandled error event" on stderr.
  const log: Log = {
    info: () => undefined,
    warn: (fields, message) => void process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
  };
  const parts = new Runnables({ info: (fields, message) => log.info(fields, message), warn: (fields, message) => log.warn(fields, message) });
  try {
    await wire(config, parts, log);
  } catch (error) {
    await parts.stop();
    throw error;
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    await parts.stop();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/** wire is the dashboard as a list of parts: Redis, the queues it reads and feeds, cluster connections, the app. */
async function wire(config: DashboardConfig, parts: Runnables, log: Log): Promise<void> {
  const { redis, subscriber } = await parts.start(runnable('redis', async () => {
    // One bounded attempt first: a refused certificate or an unreachable Redis ends start-up with a
    // clear error, before the clients below, which reconnect forever, are opened.
    await probeRedis(config.redis);
    const main = openRedisClient(config.redis, { lazyConnect: true });
    // A connection of its own that says `ready` whenever it connected again (on a Redis Cluster too):
    // the status cache then reloads what it may have missed.
    const changes = openRedisSubscriber(config.redis, { lazyConnect: true }, 'cluster' in config.redis ? main as Cluster : undefined);
    main.on('error', (error: Error) => log.warn({ connection: 'redis', err: error.message }, 'redis connection error; reconnecting'));
    changes.on('error', (error: Error) => log.warn({ connection: 'subscriber', err: error.message }, 'redis connection error; reconnecting'));
    const stop = async () => void await Promise.all([main.quit(), changes.quit()]);
    await Promise.all([main.connect(), changes.connect()]).catch(async (error: unknown) => {
      await stop().catch(() => undefined);
      throw error;
    });
    return { redis: main, subscriber: changes, stop };
  }));
  // On a Redis Cluster every key carries the hash tag {prefix}, as the reconciler writes them.
  const hashTag = needsHashTag(config.redis);
  const statusStore = new StatusStore({ redis, prefix: redisPrefix({ prefix: config.redisPrefix, hashTag }) });
  const clusters = [...new Set([...config.clusters, ...(await statusStore.clusters())])];
  const queues = await parts.start(runnable('queues', async () => {
    const started = new ReconcileQueues({ connection: redis, prefix: config.redisPrefix, hashTag, clusters });
    await started.start();
    return started;
  }));
  const previews = await parts.start(runnable('preview queue', async () => {
    const started = new PreviewQueue({ connection: redis, prefix: config.redisPrefix, hashTag });
    await started.start();
    return started;
  }));
  const clusterConnections = await parts.start(runnable('cluster connections', () => {
    const connections = connectClusters(config);
    return { connections, stop: () => { for (const connection of connections.values()) connection.close(); } };
  }));
  const app = await parts.start(runnable('app', async () => {
    const app = await buildDashboard({
      statusStore, queues, previews, redis, subscriber, clusters, logger: true, clusterConnections: clusterConnections.connections, sourceIdentities: new Map(Object.entries(config.sourceIdentities)), ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}), trustedProxies: config.trustedProxies, auditMaxRecords: config.auditMaxRecords, ...(config.traceUrl ? { traceUrl: config.traceUrl } : {}),
      auth: { tokens: config.tokens, sessionSecret: config.sessionSecret, secureCookies: config.secureCookies, ...(config.oidc ? { oidc: config.oidc } : {}) },
    });
    log.info = (fields, message) => app.log.info(fields, message);
    log.warn = (fields, message) => app.log.warn(fields, message);
    if (config.sessionSecretGenerated) app.log.warn('TIDEMARK_DASHBOARD_SESSION_SECRET is not set: sessions end when this process restarts.');
    await app.listen({ host: config.host, port: config.port });
    return app;
  }));
  const tokensFile = config.tokensFile;
  if (tokensFile) await parts.start(runnable('tokens file watch', () => watchTokens(tokensFile, app)));
}

/** watchTokens ends the sessions of a token removed from or changed in the file within seconds, without a restart; it returns the stop. */
function watchTokens(tokensFile: string, app: Awaited<ReturnType<typeof buildDashboard>>): () => void {
  watchFile(tokensFile, { interval: 2_000 }, () => {
    try {
      void app.replaceTokens(reloadTokens(tokensFile)).then((ended) => app.log.info({ ended }, 'tokens reloaded'), (error: unknown) => app.log.error({ err: String(error) }, 'ending sessions after a token reload failed'));
    } catch (error) {
      app.log.error({ err: messageOf(error) }, 'the tokens file is invalid; the previous tokens stay in force');
    }
  });
  return () => unwatchFile(tokensFile);
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
