import { Redis } from 'ioredis';
import { ReconcileQueues } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { buildDashboard } from './build-app';
import { loadConfig } from './config';

/** main starts the dashboard and stops it, in reverse order, on SIGINT or SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const redis = new Redis(config.redisUrl, { lazyConnect: true });
  const subscriber = new Redis(config.redisUrl, { lazyConnect: true });
  await Promise.all([redis.connect(), subscriber.connect()]);
  const statusStore = new StatusStore({ redis, prefix: config.redisPrefix });
  const clusters = [...new Set([...config.clusters, ...(await statusStore.clusters())])];
  const queues = new ReconcileQueues({ connection: redis, prefix: config.redisPrefix, clusters });
  await queues.start();
  const app = await buildDashboard({
    statusStore, queues, redis, subscriber, clusters, logger: true,
    auth: { tokens: config.tokens, sessionSecret: config.sessionSecret, secureCookies: config.secureCookies },
  });
  if (config.sessionSecretGenerated) app.log.warn('TIDEMARK_DASHBOARD_SESSION_SECRET is not set: sessions end when this process restarts.');
  await app.listen({ host: config.host, port: config.port });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    await app.close();
    await queues.close();
    await Promise.all([redis.quit(), subscriber.quit()]);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
