import type { Redis } from 'ioredis';
import { messageOf } from '@tidemark/contracts';
import { closeRedis } from './connection';
import { describeEndpoint, openRedisClient, type RedisEndpoint } from './redis-endpoint';
import { tlsFailureAdvice } from './redis-tls';
import { QueueUnavailableError } from './errors/queue-unavailable-error';
import { RedisTlsError } from './errors/redis-tls-error';

/** ProbeRedisOptions bound the start-up probe. */
export interface ProbeRedisOptions {
  /** How long Redis may take to answer before start-up fails. @defaultValue 15000 */
  timeoutMs?: number;
}

/**
 * probeRedis connects once and sends PING, before any client that reconnects forever is opened:
 * a refused certificate (ours or the server's) fails start-up with a RedisTlsError that names the
 * endpoint (no password), the CA file and what to check; no answer within `timeoutMs` fails it with a
 * QueueUnavailableError. A TLS failure is not retried: another attempt meets the same certificate.
 */
export async function probeRedis(endpoint: RedisEndpoint, options: ProbeRedisOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const where = `Redis at ${describeEndpoint(endpoint)}`;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 0; Date.now() < deadline; attempt += 1) {
    const client = openProbe(endpoint, attempt, timeoutMs);
    const errors: unknown[] = [];
    client.on('error', (error: unknown) => errors.push(error));
    try {
      await withTimeout(connectAndPing(client), deadline - Date.now());
      return;
    } catch (error) {
      // The socket's own error (a certificate refused) comes before ioredis's "Connection is closed".
      last = [...errors, error].find((candidate) => tlsFailureAdvice(candidate, endpoint.tls)) ?? errors[0] ?? error;
      const advice = tlsFailureAdvice(last, endpoint.tls);
      if (advice) throw new RedisTlsError(`${where}: ${advice}`, { cause: last });
    } finally {
      await closeRedis(client);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new QueueUnavailableError(`${where} did not answer within ${timeoutMs} ms: ${messageOf(last)}. Check that Redis runs and this address reaches it.`, { cause: last });
}

/**
 * openProbe is a client that tries once. On a Redis Cluster it is a plain client to one configured
 * node after another (with the cluster's login and TLS): ioredis's cluster client hides a node's
 * TLS error behind "Failed to refresh slots cache".
 */
function openProbe(endpoint: RedisEndpoint, attempt: number, timeoutMs: number): Redis {
  const options = { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, sentinelRetryStrategy: () => null, connectTimeout: Math.min(5_000, timeoutMs) };
  if (!('cluster' in endpoint)) return openRedisClient(endpoint, options) as Redis;
  const nodes = endpoint.cluster.nodes;
  const node = nodes[attempt % Math.max(1, nodes.length)]!;
  const auth = endpoint.cluster.auth;
  const login = auth ? { ...(auth.username ? { username: auth.username } : {}), password: auth.password } : {};
  const host = node.host.includes(':') ? `[${node.host}]` : node.host;
  return openRedisClient({ url: `${endpoint.tls ? 'rediss' : 'redis'}://${host}:${node.port}`, ...(endpoint.tls ? { tls: endpoint.tls } : {}) }, { ...options, ...login }) as Redis;
}

async function connectAndPing(client: Redis): Promise<void> {
  if (client.status === 'wait') await client.connect();
  await client.ping();
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.max(0, ms)} ms`)), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
