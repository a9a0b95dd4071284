import type { RedisOptions } from 'ioredis';

/**
 * wireProtocol: Tidemark talks RESP2 to Redis, as it did on ioredis 5. ioredis 6 opens every
 * connection with `HELLO 3` by default; its own migration notes call the RESP2-shaped "legacy"
 * reply mapping best-effort, and Tidemark's scripts, pipelines and pub/sub (and BullMQ's) were
 * proven on RESP2 while using nothing RESP3 adds. Every client built here carries it, and ioredis
 * copies it into duplicates (BullMQ's blocking connections, subscribers) and a cluster's nodes.
 */
export const wireProtocol = { protocol: 2 } as const satisfies RedisOptions;

/** withWireProtocol is `options` speaking RESP2; a reply mapping only applies to RESP3, so none is kept. */
export function withWireProtocol<Options extends { replyMapping?: unknown }>(options: Options | undefined): Omit<Options, 'replyMapping'> & typeof wireProtocol {
  const { replyMapping: _ignored, ...rest } = options ?? ({} as Options);
  return { ...rest, ...wireProtocol };
}
