import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';
import { withWireProtocol } from './wire-protocol';

/**
 * failoverRetries let a command ride out a primary's failover: a command to a slot whose primary
 * is gone is tried again every 200 ms, up to 100 times (20 s: the cluster's node timeout plus an
 * election), before it fails. ioredis's own (16 tries, 100 ms apart) give up 1.6 s in, and a
 * BullMQ worker whose job completion failed that way records the finished run as failed.
 */
const failoverRetries = { retryDelayOnFailover: 200, retryDelayOnClusterDown: 200, maxRedirections: 100 } as const satisfies ClusterOptions;

/** ioredis's defaults, for the connections that must not wait through a failover (below). */
const shortRetries = { retryDelayOnFailover: 100, retryDelayOnClusterDown: 100, maxRedirections: 16 } as const satisfies ClusterOptions;

/**
 * FailoverCluster is the Redis Cluster client Tidemark's own commands go through (queues, the
 * status store, leases): they are retried through a failover (failoverRetries).
 *
 * `duplicate` is how BullMQ opens a worker's blocking connection, and it keeps ioredis's short
 * retries: a BZPOPMIN retried for 20 s through a failover left idle workers taking no job that
 * was enqueued after it (test/queue/redis-topologies). With short retries the blocking command
 * fails fast and BullMQ's watchdog reconnects it to the new primary.
 */
export class FailoverCluster extends Cluster {
  constructor(private readonly startup: ClusterNode[], options: ClusterOptions = {}) {
    super(startup, { ...failoverRetries, ...options, redisOptions: withWireProtocol(options.redisOptions) });
  }

  /** reopen is a new client like this one (our own commands, retried through a failover) with `options` on top. */
  reopen(options: ClusterOptions): FailoverCluster {
    return new FailoverCluster(this.startup.slice(), { ...this.options, ...options });
  }

  /** duplicate, as BullMQ calls it for its blocking connection: ioredis's short retries. */
  override duplicate(overrideStartupNodes: ClusterNode[] = [], overrideOptions: ClusterOptions = {}): Cluster {
    const nodes = Array.isArray(overrideStartupNodes) && overrideStartupNodes.length > 0 ? overrideStartupNodes : this.startup.slice();
    const options = { ...this.options, ...shortRetries, ...overrideOptions };
    return new Cluster(nodes, { ...options, redisOptions: withWireProtocol(options.redisOptions) });
  }
}
