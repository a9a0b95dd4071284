import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { TreeChange } from '@tidemark/contracts';
import type { StatusCache, CachedChange } from '../view/status-cache';
import { cellHtml, cellId } from '../pages/cell';
import type { TreeFeed } from './tree-feed';

export interface LiveUpdatesOptions {
  cache: StatusCache;
  /** Live children rewritten under some owners: sent as `tree` events. */
  trees: TreeFeed;
  /** A comment line keeps proxies from closing idle streams. @defaultValue 15000 */
  heartbeatMs?: number;
}

const maxBufferedBytes = 4 * 1024 * 1024;

/** cellEvent renders changed cells once for every open stream (the markup of the matrix). */
export function cellEvent(changes: readonly CachedChange[]): string {
  const cells = changes.map((change) => ({
    id: cellId(change.cluster, change.objectKey),
    state: change.entry?.cell.state ?? 'Deleted',
    html: cellHtml(change.cluster, change.objectKey, change.entry?.cell).value,
    ...(change.created ? { created: true } : {}),
  }));
  return `event: cells\ndata: ${JSON.stringify({ cells })}\n\n`;
}

/** treeEvent names the cluster and owner uids whose live children changed; pages showing one of them redraw. */
export function treeEvent(change: TreeChange): string {
  return `event: tree\ndata: ${JSON.stringify(change)}\n\n`;
}

/**
 * liveUpdates serves GET /events, a server-sent event stream. The cache batches store changes
 * from Redis pub/sub; each batch is one `cells` event to every open stream. Each rewrite of
 * live children (Pods, ReplicaSets) is one `tree` event.
 */
export async function liveUpdates(app: FastifyInstance, { cache, trees, heartbeatMs = 15_000 }: LiveUpdatesOptions): Promise<void> {
  const streams = new Set<ServerResponse>();
  const send = (event: string) => {
    for (const stream of streams) {
      // A client that cannot keep up is dropped rather than buffered without bound; its
      // EventSource reconnects and the page reloads its data.
      if (stream.writableLength > maxBufferedBytes) stream.destroy();
      else stream.write(event);
    }
  };
  const unsubscribeCells = cache.onChange((changes) => send(cellEvent(changes)));
  const unsubscribeTrees = trees.onChange((change) => send(treeEvent(change)));
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': ping\n\n');
  }, heartbeatMs);
  heartbeat.unref();

  // preClose, not onClose: the server waits for open connections before onClose runs, and an
  // event stream never ends by itself.
  app.addHook('preClose', async () => {
    unsubscribeCells();
    unsubscribeTrees();
    clearInterval(heartbeat);
    // destroy, not end: an ended stream's keep-alive socket would still hold the server open.
    for (const stream of streams) stream.destroy();
    streams.clear();
  });

  app.get('/events', { schema: { hide: true } }, async (request, reply) => {
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    stream.write('retry: 1000\n\n');
    streams.add(stream);
    stream.on('close', () => streams.delete(stream));
  });
}
