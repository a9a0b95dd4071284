import type { Cluster, Redis } from 'ioredis';

/**
 * RedisClient is a connection to a standalone or Sentinel-managed Redis (`Redis`) or to a Redis
 * Cluster (`Cluster`). Every record shares the deployment's key prefix; with Redis Cluster that
 * prefix is a hash tag (`{tidemark}`), so the multi-key commands and scripts of every library
 * address one slot.
 */
export type RedisClient = Redis | Cluster;

/**
 * duplicateClient opens another connection like `client`, with its options (a subscriber's).
 * ioredis 6 declares `duplicate` generically on each class, so the union has no callable
 * signature; both take no argument to copy the client as it is.
 */
export function duplicateClient(client: RedisClient): RedisClient {
  return (client as { duplicate(): RedisClient }).duplicate();
}
