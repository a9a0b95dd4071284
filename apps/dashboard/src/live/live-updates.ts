import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { TreeChange } from '@tidemark/contracts';
import type { StatusCache, CachedChange } from '../view/status-cache';
import { cellHtml, cellId } from '../pages/cell';
import type { TreeFeed } from './tree-feed';
import { inScope, scopeKey, type TokenScope } from '../auth/token-scope';
import { ownerUidsOf } from '../view/resource-tree';

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

/** scopedCells keeps the changes a scoped stream may see: records of its sources and namespaces (a deletion names no source, so it is left out). */
export function scopedCells(changes: readonly CachedChange[], scope: TokenScope | undefined): readonly CachedChange[] {
  return scope ? changes.filter((change) => change.entry !== undefined && inScope(scope, change.entry.status)) : changes;
}

/** treeInScope: a tree change goes to a scoped stream only when it is about the children of one of the scope's objects. */
function treeInScope(cache: StatusCache, change: TreeChange, scope: TokenScope): boolean {
  if (change.replaced) return true; // Names no owner: "redraw whatever you show".
  const wanted = new Set(change.ownerUids);
  for (const row of cache.rows()) {
    const entry = row.cells.get(change.cluster);
    if (entry && inScope(scope, entry.status) && ownerUidsOf(entry.status).some((uid) => wanted.has(uid))) return true;
  }
  return false;
}

/**
 * liveUpdates serves GET /events, a server-sent event stream. The cache batches store changes
 * from Redis pub/sub; each batch is one `cells` event to every open stream. Each rewrite of
 * live children (Pods, ReplicaSets) is one `tree` event.
 */
export async function liveUpdates(app: FastifyInstance, { cache, trees, heartbeatMs = 15_000 }: LiveUpdatesOptions): Promise<void> {
  // Each stream with the scope of the token that opened it: a scoped stream gets only its own records.
  const streams = new Map<ServerResponse, TokenScope | undefined>();
  const send = (eventFor: (scope: TokenScope | undefined) => string | undefined) => {
    const rendered = new Map<string, string | undefined>();
    for (const [stream, scope] of streams) {
      const key = scopeKey(scope);
      if (!rendered.has(key)) rendered.set(key, eventFor(scope));
      const event = rendered.get(key);
      // A client that cannot keep up is dropped rather than buffered without bound; its
      // EventSource reconnects and the page reloads its data.
      if (stream.writableLength > maxBufferedBytes) stream.destroy();
      else if (event) stream.write(event);
    }
  };
  const unsubscribeCells = cache.onChange((changes) => send((scope) => {
    const visible = scopedCells(changes, scope);
    return visible.length > 0 ? cellEvent(visible) : undefined;
  }));
  const unsubscribeTrees = trees.onChange((change) => send((scope) => (!scope || treeInScope(cache, change, scope) ? treeEvent(change) : undefined)));
  const heartbeat = setInterval(() => {
    for (const stream of streams.keys()) stream.write(': ping\n\n');
  }, heartbeatMs);
  heartbeat.unref();

  // preClose, not onClose: the server waits for open connections before onClose runs, and an
  // event stream never ends by itself.
  app.addHook('preClose', async () => {
    unsubscribeCells();
    unsubscribeTrees();
    clearInterval(heartbeat);
    // destroy, not end: an ended stream's keep-alive socket would still hold the server open.
    for (const stream of streams.keys()) stream.destroy();
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
    streams.set(stream, request.principal?.scope);
    stream.on('close', () => streams.delete(stream));
  });
}
