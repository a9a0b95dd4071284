import type { Cluster, Redis } from 'ioredis';

/**
 * RedisClient is a connection to a standalone or Sentinel-managed Redis (`Redis`) or to a Redis
 * Cluster (`Cluster`). Every record shares the deployment's key prefix; with Redis Cluster that
 * prefix is a hash tag (`{tidemark}`), so the multi-key commands and scripts of every library
 * address one slot.
 */
export type RedisClient = Redis | Cluster;
