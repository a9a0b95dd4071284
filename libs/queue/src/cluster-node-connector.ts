import { createConnection } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { AbstractConnector, type RedisOptions } from 'ioredis';

/** NodeAddress is one `host:port` a connection may be made to. */
export interface NodeAddress {
  host: string;
  port: number;
}

/**
 * clusterNodeConnector makes an ioredis connection reach a Redis Cluster through one node after
 * another: each connect (the first, and each reconnect after that node went away) takes the next
 * of `nodes()`. A pub/sub subscriber on it reconnects like any `Redis`: it re-subscribes and emits
 * `ready`, so its owner knows that messages may have been missed (ioredis's own cluster subscriber
 * moves to another node without telling anyone). Any node serves: PUBLISH reaches every node.
 * With `tls` each connection is a TLS one, verified as every other connection to the cluster.
 */
export function clusterNodeConnector(nodes: () => readonly NodeAddress[], tls?: ConnectionOptions): NonNullable<RedisOptions['Connector']> {
  let attempt = 0;
  return class ClusterNodeConnector extends AbstractConnector {
    constructor(options: unknown) {
      super((options as RedisOptions).disconnectTimeout ?? 2000);
    }

    connect() {
      const list = nodes();
      const node = list[attempt % Math.max(1, list.length)];
      attempt += 1;
      this.connecting = true;
      this.firstError = undefined;
      // As ioredis's own connector: the stream is made on the next tick, unless disconnect() came first.
      return new Promise<ReturnType<typeof createConnection>>((resolve, reject) => {
        process.nextTick(() => {
          if (!this.connecting || !node) {
            reject(new Error(node ? 'Connection is closed.' : 'No Redis Cluster node is known to connect to.'));
            return;
          }
          const stream = tls ? connectTls({ ...tls, host: node.host, port: node.port }) : createConnection({ host: node.host, port: node.port });
          stream.once('error', (error) => {
            this.firstError = error;
          });
          this.stream = stream;
          resolve(stream);
        });
      });
    }
  };
}
