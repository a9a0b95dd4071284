import type { Cluster, Redis } from 'ioredis';
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
  while (Date.now() < deadline) {
    const client = openRedisClient(endpoint, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, sentinelRetryStrategy: () => null, connectTimeout: Math.min(5_000, timeoutMs) });
    const errors: unknown[] = [];
    client.on('error', (error: unknown) => errors.push(error));
    try {
      await withTimeout(connectAndPing(client), deadline - Date.now());
      return;
    } catch (error) {
      // The socket's own error (a certificate refused) comes before ioredis's "Connection is closed".
      last = [...errors, error].find((candidate) => tlsFailureAdvice(causeOf(candidate), endpoint.tls)) ?? errors[0] ?? error;
      const advice = tlsFailureAdvice(causeOf(last), endpoint.tls);
      if (advice) throw new RedisTlsError(`${where}: ${advice}`, { cause: last });
    } finally {
      await closeRedis(client);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new QueueUnavailableError(`${where} did not answer within ${timeoutMs} ms: ${messageOf(last)}. Check that Redis runs and this address reaches it.`, { cause: last });
}

async function connectAndPing(client: Redis | Cluster): Promise<void> {
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

/** causeOf: ioredis wraps a cluster node's failure; the socket's error is what names the certificate problem. */
function causeOf(error: unknown): unknown {
  const nested = (error as { lastNodeError?: unknown; cause?: unknown } | undefined);
  return nested?.lastNodeError ?? nested?.cause ?? error;
}
