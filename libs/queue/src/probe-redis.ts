import type { Redis } from 'ioredis';
import { messageOf } from '@tidemark/contracts';
import { closeRedis } from './connection';
import { describeEndpoint, openRedisClient, type RedisEndpoint } from './redis-endpoint';
import { tlsFailureAdvice, type RedisTls } from './redis-tls';
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
    try {
      for (const probe of openProbes(endpoint, attempt, timeoutMs)) await pingOnce(probe, endpoint.tls, deadline, where);
      return;
    } catch (error) {
      if (error instanceof RedisTlsError) throw error;
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // A server that serves TLS only resets a plain client: say so, since nothing else does.
  const plainToTls = !endpoint.tls && /ECONNRESET/.test(`${String((last as { code?: unknown } | undefined)?.code)} ${messageOf(last)}`);
  const check = plainToTls ? ' If that port serves TLS only, use rediss:// (or the TLS settings for Sentinel and Cluster).' : '';
  throw new QueueUnavailableError(`${where} did not answer within ${timeoutMs} ms: ${messageOf(last)}. Check that Redis runs and this address reaches it.${check}`, { cause: last });
}

/** Probe opens one client that tries once; `server` names what it dials when that is not the endpoint itself. */
interface Probe {
  open(): Redis;
  server?: string;
}

/**
 * pingOnce connects `probe` and sends PING within the deadline, and always closes it. A TLS refusal
 * becomes a RedisTlsError; anything else is thrown as it came, for the next attempt.
 */
async function pingOnce(probe: Probe, tls: RedisTls | undefined, deadline: number, where: string): Promise<void> {
  const errors: unknown[] = [];
  const client = probe.open();
  client.on('error', (error: unknown) => errors.push(error));
  try {
    await withTimeout(connectAndPing(client), deadline - Date.now());
  } catch (error) {
    // The socket's own error (a certificate refused) comes before ioredis's "Connection is closed".
    const cause = [...errors, error].find((candidate) => tlsFailureAdvice(candidate, tls)) ?? errors[0] ?? error;
    const advice = tlsFailureAdvice(cause, tls);
    if (advice) throw new RedisTlsError(`${where}${probe.server ? ` (${probe.server})` : ''}: ${advice}`, { cause });
    throw cause;
  } finally {
    await closeRedis(client);
  }
}

/**
 * openProbes are the clients of one attempt, each trying once. On a Redis Cluster that is a plain
 * client to one configured node after another (with the cluster's login and TLS): ioredis's cluster
 * client hides a node's TLS error behind "Failed to refresh slots cache". On a Sentinel group it is
 * first a plain client to one sentinel after another (with the sentinels' login and TLS), whose TLS
 * error ioredis's sentinel client hides behind "All sentinels are unreachable", then the group's
 * client, which reaches the primary the sentinels name.
 */
function openProbes(endpoint: RedisEndpoint, attempt: number, timeoutMs: number): Probe[] {
  const options = { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, sentinelRetryStrategy: () => null, connectTimeout: Math.min(5_000, timeoutMs) };
  if ('url' in endpoint) return [{ open: () => openRedisClient(endpoint, options) as Redis }];
  const nodes = 'cluster' in endpoint ? endpoint.cluster.nodes : endpoint.sentinel.nodes;
  const auth = 'cluster' in endpoint ? endpoint.cluster.auth : endpoint.sentinel.sentinelAuth;
  const node = nodes[attempt % Math.max(1, nodes.length)]!;
  const login = auth ? { ...(auth.username ? { username: auth.username } : {}), password: auth.password } : {};
  const host = node.host.includes(':') ? `[${node.host}]` : node.host;
  const direct: Probe = {
    open: () => openRedisClient({ url: `${endpoint.tls ? 'rediss' : 'redis'}://${host}:${node.port}`, ...(endpoint.tls ? { tls: endpoint.tls } : {}) }, { ...options, ...login }) as Redis,
    server: `${'cluster' in endpoint ? 'node' : 'sentinel'} ${host}:${node.port}`,
  };
  if ('cluster' in endpoint) return [direct];
  return [direct, { open: () => openRedisClient(endpoint, options) as Redis, server: `the primary that sentinel ${endpoint.sentinel.name} names` }];
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
