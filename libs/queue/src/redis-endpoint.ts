import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClient } from '@tidemark/contracts';
import type { RedisConnection } from './connection';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';

/** RedisNode is one `host:port` of a Sentinel group or a Redis Cluster. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * RedisEndpoint says how to reach Redis: one URL (a standalone server), a Sentinel group (the
 * sentinels and the name of the primary they watch; ioredis follows a failover), or a Redis
 * Cluster (some of its nodes; the rest is discovered).
 */
export type RedisEndpoint =
  | { url: string }
  | { sentinel: { name: string; nodes: readonly RedisNode[] } }
  | { cluster: { nodes: readonly RedisNode[] } };

/**
 * needsHashTag: on Redis Cluster every key must carry the deployment's hash tag (`{tidemark}`),
 * so that BullMQ's scripts and the status store's transactions address one slot.
 */
export function needsHashTag(endpoint: RedisEndpoint): boolean {
  return 'cluster' in endpoint;
}

/**
 * redisConnectionFor turns an endpoint into what the queue classes and openRedis take. A
 * Cluster is built with lazyConnect, so nothing is opened until its first command.
 */
export function redisConnectionFor(endpoint: RedisEndpoint): RedisConnection {
  if ('url' in endpoint) return endpoint.url;
  if ('sentinel' in endpoint) {
    const options: RedisOptions = { sentinels: endpoint.sentinel.nodes.map((node) => ({ ...node })), name: endpoint.sentinel.name };
    return options;
  }
  return new Cluster(endpoint.cluster.nodes.map((node) => ({ ...node })), { lazyConnect: true });
}

/**
 * openRedisClient opens a client of the caller's own (the status store's, the dashboard's) with
 * `options` for every connection it makes; on a cluster they apply to each node's connection.
 */
export function openRedisClient(endpoint: RedisEndpoint, options: RedisOptions = {}): RedisClient {
  if ('url' in endpoint) return new Redis(endpoint.url, options);
  if ('sentinel' in endpoint) return new Redis({ ...options, sentinels: endpoint.sentinel.nodes.map((node) => ({ ...node })), name: endpoint.sentinel.name });
  return new Cluster(endpoint.cluster.nodes.map((node) => ({ ...node })), { lazyConnect: options.lazyConnect ?? false, redisOptions: options });
}

/** parseRedisNode reads `host:port`; `where` names the field in the error. */
export function parseRedisNode(text: string, where: string): RedisNode {
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new InvalidQueueOptionsError(`${where}: "${text}" is not host:port (for example redis-0.redis:26379).`);
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

/** describeEndpoint names an endpoint for logs without any password a URL may carry. */
export function describeEndpoint(endpoint: RedisEndpoint): string {
  if ('url' in endpoint) {
    try {
      const url = new URL(endpoint.url);
      return `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      return 'a Redis URL';
    }
  }
  if ('sentinel' in endpoint) return `sentinel ${endpoint.sentinel.name} via ${endpoint.sentinel.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
  return `cluster via ${endpoint.cluster.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
}
