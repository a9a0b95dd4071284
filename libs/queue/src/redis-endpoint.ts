import { Redis, type Cluster, type RedisOptions } from 'ioredis';
import type { RedisClient } from '@tidemark/contracts';
import { clusterNodeConnector, type NodeAddress } from './cluster-node-connector';
import { FailoverCluster } from './failover-cluster';
import type { RedisConnection } from './connection';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
import { tlsConnectionOptions, type RedisTls } from './redis-tls';
import { wireProtocol } from './wire-protocol';

/** RedisNode is one `host:port` of a Sentinel group or a Redis Cluster. */
export interface RedisNode {
  host: string;
  port: number;
}

/** RedisAuth logs in to Redis: a password, as an ACL user when `username` is set (else `default`). */
export interface RedisAuth {
  username?: string;
  password: string;
}

/**
 * RedisEndpoint says how to reach Redis: one URL (a standalone server; credentials in the URL),
 * a Sentinel group (the sentinels and the name of the primary they watch; ioredis follows a
 * failover), or a Redis Cluster (some of its nodes; the rest is discovered). `auth` logs in to
 * the data nodes, `sentinelAuth` to the sentinels themselves. `tls` applies to every connection made
 * (the URL's, the sentinels' and their data nodes', every cluster node's); a `rediss://` URL needs it
 * for anything but Node's trusted CAs. `hashTag` names keys per cluster on one server or a Sentinel
 * group too (a Redis Cluster always does): what an agent's ACL rule needs (agentAclRule).
 */
export type RedisEndpoint = (
  | { url: string }
  | { sentinel: { name: string; nodes: readonly RedisNode[]; auth?: RedisAuth; sentinelAuth?: RedisAuth } }
  | { cluster: { nodes: readonly RedisNode[]; auth?: RedisAuth } }
) & { tls?: RedisTls; hashTag?: boolean };

/**
 * needsHashTag: on Redis Cluster every key must carry the deployment's hash tag (`{tidemark}`),
 * so that BullMQ's scripts and the status store's transactions address one slot. Elsewhere the
 * tags are harmless and asked for by `hashTag`: each target cluster's keys then have a prefix of
 * their own, `{tidemark.<cluster>}`, which an agent's ACL rule can grant alone.
 */
export function needsHashTag(endpoint: RedisEndpoint): boolean {
  return 'cluster' in endpoint || endpoint.hashTag === true;
}

/**
 * redisConnectionFor turns an endpoint into what the queue classes and openRedis take. A
 * Cluster is built with lazyConnect, so nothing is opened until its first command, and its
 * commands are retried through a failover (FailoverCluster).
 */
export function redisConnectionFor(endpoint: RedisEndpoint): RedisConnection {
  if ('url' in endpoint) return endpoint.tls ? { ...urlOptions(endpoint.url), ...tlsOptions(endpoint.tls) } : endpoint.url;
  if ('sentinel' in endpoint) return sentinelOptions(endpoint.sentinel, endpoint.tls);
  return new FailoverCluster(endpoint.cluster.nodes.map((node) => ({ ...node })), { lazyConnect: true, redisOptions: { ...loginOptions(endpoint.cluster.auth), ...tlsOptions(endpoint.tls) } });
}

/** sentinelOptions are ioredis's options for a Sentinel group, with the logins to the data nodes and to the sentinels, and TLS to both. */
function sentinelOptions(sentinel: Extract<RedisEndpoint, { sentinel: unknown }>['sentinel'], tls: RedisTls | undefined): RedisOptions {
  const options: RedisOptions = { sentinels: sentinel.nodes.map((node) => ({ ...node })), name: sentinel.name, ...loginOptions(sentinel.auth), ...tlsOptions(tls) };
  if (sentinel.sentinelAuth?.username) options.sentinelUsername = sentinel.sentinelAuth.username;
  if (sentinel.sentinelAuth) options.sentinelPassword = sentinel.sentinelAuth.password;
  if (tls) Object.assign(options, { enableTLSForSentinelMode: true, sentinelTLS: tlsConnectionOptions(tls) });
  return options;
}

/** tlsOptions is ioredis's `tls` for every data connection; ioredis's duplicates (BullMQ's blocking ones) copy it. */
function tlsOptions(tls: RedisTls | undefined): Pick<RedisOptions, 'tls'> {
  return tls ? { tls: tlsConnectionOptions(tls) } : {};
}

/** urlOptions are a `redis(s)://[user:password@]host:port/db` URL as ioredis's options, so that `tls` can go beside them. */
function urlOptions(text: string): RedisOptions {
  const url = new URL(text);
  const db = Number(url.pathname.slice(1) || 0);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db ? { db } : {}),
  };
}

function loginOptions(auth: RedisAuth | undefined): Pick<RedisOptions, 'username' | 'password'> {
  if (!auth) return {};
  return { ...(auth.username ? { username: auth.username } : {}), password: auth.password };
}

/**
 * openRedisClient opens a client of the caller's own (the status store's, the dashboard's) with
 * `options` for every connection it makes; on a cluster they apply to each node's connection, and
 * its commands are retried through a failover (FailoverCluster).
 */
export function openRedisClient(endpoint: RedisEndpoint, options: RedisOptions = {}): RedisClient {
  if ('url' in endpoint) return new Redis(endpoint.url, { ...options, ...tlsOptions(endpoint.tls), ...wireProtocol });
  if ('sentinel' in endpoint) return new Redis({ ...options, ...sentinelOptions(endpoint.sentinel, endpoint.tls), ...wireProtocol });
  return new FailoverCluster(endpoint.cluster.nodes.map((node) => ({ ...node })), { lazyConnect: options.lazyConnect ?? false, redisOptions: { ...options, ...loginOptions(endpoint.cluster.auth), ...tlsOptions(endpoint.tls) } });
}

/**
 * openRedisSubscriber opens a connection for pub/sub that emits `ready` each time it has
 * connected again, so a subscriber can tell that it may have missed messages. On a URL or a
 * Sentinel group that is a `Redis` as openRedisClient makes it. On a Redis Cluster it is a `Redis`
 * too, connected to one node at a time: the configured nodes, then those `cluster` knows of.
 */
export function openRedisSubscriber(endpoint: RedisEndpoint, options: RedisOptions = {}, cluster?: Cluster): Redis {
  if (!('cluster' in endpoint)) return openRedisClient(endpoint, options) as Redis;
  const configured = endpoint.cluster.nodes;
  const nodes = (): NodeAddress[] => {
    const known = cluster?.nodes('all').map((node) => ({ host: node.options.host ?? '', port: node.options.port ?? 0 })) ?? [];
    const unique = new Map([...configured, ...known].filter((node) => node.host && node.port).map((node) => [`${node.host}:${node.port}`, node]));
    return [...unique.values()];
  };
  return new Redis({ ...options, ...loginOptions(endpoint.cluster.auth), ...tlsOptions(endpoint.tls), ...wireProtocol, Connector: clusterNodeConnector(nodes, endpoint.tls && tlsConnectionOptions(endpoint.tls)) });
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
