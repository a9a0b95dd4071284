import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { FailoverCluster } from './failover-cluster';
import { wireProtocol, withWireProtocol } from './wire-protocol';

/**
 * RedisConnection is how a queue class reaches Redis: a URL, ioredis options, or a client you
 * own (a `Cluster` for Redis Cluster). Clients you pass are duplicated, never closed by us.
 */
export type RedisConnection = string | RedisOptions | Redis | Cluster;

/** The role decides how commands behave while Redis is unreachable. */
export type ConnectionRole = 'producer' | 'worker';

/**
 * openRedis opens a client we own. Workers wait for Redis forever (`maxRetriesPerRequest:
 * null`, as BullMQ requires for blocking commands) so they ride out an outage; producers fail
 * a command after one reconnect attempt so `enqueue` reports the outage instead of hanging.
 */
export function openRedis(connection: RedisConnection, role: ConnectionRole): Redis | Cluster {
  const maxRetriesPerRequest = role === 'worker' ? null : 1;
  if (connection instanceof Cluster) {
    const options = { redisOptions: { ...withWireProtocol(connection.options.redisOptions), maxRetriesPerRequest } };
    // Ours keeps its failover retries; `duplicate` is what BullMQ's blocking connections get.
    return connection instanceof FailoverCluster ? connection.reopen(options) : connection.duplicate(undefined, options);
  }
  if (connection instanceof Redis) return connection.duplicate({ maxRetriesPerRequest, ...wireProtocol });
  const options: RedisOptions = { maxRetriesPerRequest, enableReadyCheck: true, ...wireProtocol };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...connection, ...options });
}

/** closeRedis ends a client we own, politely if Redis answers, at once if it does not. */
export async function closeRedis(client: Redis | Cluster): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await Promise.race([client.quit().catch(() => client.disconnect()), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  client.disconnect();
}

/**
 * endWhenGone is for a stop: a client whose Redis is gone now, or goes while the rest stops, is
 * ended, so the commands the stop still sends fail at once ("Connection is closed") instead of
 * waiting for a reconnect that a client made for workers (maxRetriesPerRequest null) waits for forever.
 */
export function endWhenGone(client: Redis | Cluster): void {
  const end = () => {
    client.disconnect();
    // Between reconnect attempts, disconnect only cancels the next attempt and leaves queued
    // commands waiting; one more attempt, refused, ends the client and fails them.
    if (client instanceof Redis && client.status === 'reconnecting') client.connect().catch(() => undefined);
  };
  if (client.status === 'end') return;
  if (client.status !== 'ready') end();
  else client.once('close', end);
}
