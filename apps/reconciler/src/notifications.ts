import type { Logger } from 'pino';
import type { RedisClient } from '@tidemark/contracts';
import { NotificationQueues, Notifier } from '@tidemark/notify';
import type { RedisConnection } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';

/** NotificationsWiring is what the notifier and its queues need from the reconciler. */
export interface NotificationsWiring {
  config: ReconcilerConfig;
  connection: RedisConnection;
  hashTag: boolean;
  redis: RedisClient;
  /** The record prefix, hash tag included (as the status store has it). */
  recordPrefix: string;
  statusStore: StatusStore;
  log: Logger;
}

/**
 * startNotifications starts the provider queues' workers and the notifier, when the config has
 * alerts (else nothing); the returned stop ends both. Logs name the provider and the object, never an address.
 */
export async function startNotifications(wiring: NotificationsWiring): Promise<{ stop(): Promise<void> }> {
  const { config, log } = wiring;
  const { providers, alerts, pollIntervalMs, sweepIntervalMs } = config.notifications;
  if (alerts.length === 0) return { stop: async () => undefined };
  const queues = new NotificationQueues({
    connection: wiring.connection, prefix: config.redisPrefix, hashTag: wiring.hashTag, providers,
    onFailed: (provider, job, error, final) => log.warn({ provider, reason: job.event.reason, object: job.event.involvedObject.objectKey ?? job.event.involvedObject.name, err: error.message, final }, final ? 'notification dropped after its last attempt' : 'notification not delivered; retrying'),
  });
  await queues.start({ deliver: true });
  const notifier = new Notifier({
    redis: wiring.redis, prefix: wiring.recordPrefix, statusStore: wiring.statusStore, sink: queues, alerts,
    clusters: config.clusters.map((cluster) => cluster.name), pollIntervalMs, sweepIntervalMs, log,
  });
  try {
    await notifier.start();
  } catch (error) {
    await queues.close();
    throw error;
  }
  log.info({ providers: providers.map((provider) => `${provider.name} (${provider.type})`), alerts: alerts.map((alert) => alert.name) }, 'notifications started');
  return {
    async stop() {
      await notifier.stop();
      await queues.close();
    },
  };
}
