import { getObject, type ClusterConnection } from '@tidemark/cluster';
import { runnable, type Logger, type RedisClient, type Runnable } from '@tidemark/contracts';
import type { RedisConnection } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import type { Credential } from './credential';
import { NotificationQueues } from './notification-queues';
import { Notifier } from './notifier';
import type { NotificationProvider } from './notify-options';
import type { NotificationProviderConfig, NotificationsConfig, SecretKeyRef } from './notifications-config';
import { SecretText } from './secret-text';

/** NotificationsWiring is what the notifier and its queues need from the process. */
export interface NotificationsWiring {
  connection: RedisConnection;
  /** The queues' prefix (redisPrefix). */
  queuePrefix: string;
  hashTag: boolean;
  redis: RedisClient;
  /** The record prefix, hash tag included (as the status store has it). */
  recordPrefix: string;
  statusStore: StatusStore;
  /** The registered clusters' connections, to read Secret references with. */
  connectionFor: (cluster: string) => ClusterConnection;
  /** Whether sync windows hold a cluster for every source now (holdForEverySource); without it, windows send nothing. */
  syncWindowHoldOf?: (cluster: string) => { description: string } | undefined;
  /** The clusters whose health and freezes are news (the config file's). */
  clusters: readonly string[];
  log: Logger;
}

/** createNotifications is notifications as a part: nothing runs without alerts; stop ends the notifier, then its queues. */
export function createNotifications(wiring: NotificationsWiring, settings: NotificationsConfig): Runnable<{ stop(): Promise<void> }> {
  return runnable('notifications', () => startNotifications(wiring, settings));
}

/**
 * startNotifications starts the provider queues' workers and the notifier, when the config has
 * alerts (else nothing); the returned stop ends both. Logs name the provider and the object, never an address.
 */
export async function startNotifications(wiring: NotificationsWiring, settings: NotificationsConfig): Promise<{ stop(): Promise<void> }> {
  const { log } = wiring;
  const { alerts, pollIntervalMs, sweepIntervalMs } = settings;
  if (alerts.length === 0) return { stop: async () => undefined };
  const providers = settings.providers.map((provider) => providerWithReaders(provider, wiring.connectionFor));
  const queues = new NotificationQueues({
    connection: wiring.connection, prefix: wiring.queuePrefix, hashTag: wiring.hashTag, providers,
    onFailed: (provider, job, error, final) => log.warn({ provider, reason: job.event.reason, object: job.event.involvedObject.objectKey ?? job.event.involvedObject.name, err: error.message, final }, final ? 'notification dropped after its last attempt' : 'notification not delivered; retrying'),
  });
  await queues.start({ deliver: true });
  const notifier = new Notifier({
    redis: wiring.redis, prefix: wiring.recordPrefix, statusStore: wiring.statusStore, sink: queues, alerts,
    clusters: [...wiring.clusters], pollIntervalMs, sweepIntervalMs, log,
    ...(wiring.syncWindowHoldOf ? { syncWindowHoldOf: wiring.syncWindowHoldOf } : {}),
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

/** providerWithReaders turns a provider's Secret references into readers that read the Secret at each request. */
export function providerWithReaders(provider: NotificationProviderConfig, connectionFor: (cluster: string) => ClusterConnection): NotificationProvider {
  const { address, hmacKey, ...rest } = provider;
  return { ...rest, address: credentialOf(address, connectionFor), ...(hmacKey ? { hmacKey: credentialOf(hmacKey, connectionFor) } : {}) };
}

function credentialOf(credential: SecretText | { readonly secretRef: SecretKeyRef }, connectionFor: (cluster: string) => ClusterConnection): Credential {
  if (credential instanceof SecretText) return credential;
  const ref = credential.secretRef;
  const from = `key ${ref.key} of Secret ${ref.namespace}/${ref.name} on cluster ${ref.cluster}`;
  return {
    from,
    async read() {
      const secret = await getObject(connectionFor(ref.cluster), { apiVersion: 'v1', kind: 'Secret', namespace: ref.namespace, name: ref.name });
      if (!secret) throw new Error(`Secret ${ref.namespace}/${ref.name} does not exist`);
      const data = (secret as { data?: Record<string, string> }).data ?? {};
      // The message names the keys there are, never a value.
      if (data[ref.key] === undefined) throw new Error(`the Secret has no key ${ref.key}; it has ${Object.keys(data).sort().join(', ') || 'none'}`);
      return Buffer.from(data[ref.key] ?? '', 'base64').toString('utf8').trim();
    },
  };
}
