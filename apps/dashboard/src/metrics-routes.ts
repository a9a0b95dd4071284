import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { StatusStore, StatusTally } from '@tidemark/status-store';
import type { QueueAccess } from './view/dashboard-data';

export interface MetricsRouteOptions {
  statusStore: Pick<StatusStore, 'clusters'>;
  /** The records by Ready and their drift items, per cluster: what changed since the last scrape is read, not every record. */
  statusCounts: Pick<StatusTally, 'counts'>;
  queues: Pick<QueueAccess, 'figures'>;
  /** When set, /metrics needs `Authorization: Bearer <token>`. @defaultValue none: open, like /healthz */
  token?: string;
}

/** bearerMatches compares a request's bearer token with the expected one in constant time. */
export function bearerMatches(request: FastifyRequest, expected: string): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const left = Buffer.from(presented);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * registerMetrics serves /metrics for Prometheus, without a sign-in like /healthz: the
 * dashboard's request times, and the queue and status-store figures it shows (the same names
 * as the reconciler's, read from the same Redis). Registered on the root instance, not as an
 * encapsulated plugin, so its timing hook sees every route. Its registry is its own.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsRouteOptions): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tidemark_dashboard_' });
  const registers = [registry];
  const requests = new Histogram({ name: 'tidemark_dashboard_request_duration_seconds', help: 'Dashboard requests by route, method and status code.', labelNames: ['route', 'method', 'code'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers });
  const gauges = {
    queueDepth: new Gauge({ name: 'tidemark_queue_jobs', help: 'Jobs in a cluster queue per state.', labelNames: ['cluster', 'state'], registers }),
    queueWait: new Gauge({ name: 'tidemark_queue_wait_seconds', help: 'Wait from enqueue to the start of a run over the last 1,000 jobs, as quantiles.', labelNames: ['cluster', 'quantile'], registers }),
    driftItems: new Gauge({ name: 'tidemark_drift_items', help: 'Drift items left in place on a cluster, from the status store.', labelNames: ['cluster'], registers }),
    objects: new Gauge({ name: 'tidemark_objects', help: 'Objects in the status store per cluster, by whether their verdict is Ready.', labelNames: ['cluster', 'ready'], registers }),
  };
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the URL: object names would make unbounded label values.
    requests.observe({ route: request.routeOptions.url ?? 'unmatched', method: request.method, code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (options.token !== undefined && !bearerMatches(request, options.token)) {
      return reply.status(401).send({ code: 'Unauthenticated', message: 'The metrics endpoint needs its bearer token.' });
    }
    await readFigures(options, gauges).catch(() => undefined);
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

async function readFigures(options: MetricsRouteOptions, gauges: Record<'queueDepth' | 'queueWait' | 'driftItems' | 'objects', Gauge>): Promise<void> {
  for (const figures of await options.queues.figures()) {
    for (const [state, count] of Object.entries(figures.depth)) gauges.queueDepth.set({ cluster: figures.cluster, state }, count);
    gauges.queueWait.set({ cluster: figures.cluster, quantile: '0.5' }, figures.waitMs.p50 / 1000);
    gauges.queueWait.set({ cluster: figures.cluster, quantile: '0.99' }, figures.waitMs.p99 / 1000);
  }
  for (const [cluster, counts] of await options.statusCounts.counts(await options.statusStore.clusters())) {
    gauges.objects.set({ cluster, ready: 'true' }, counts.ready);
    gauges.objects.set({ cluster, ready: 'false' }, counts.notReady);
    gauges.driftItems.set({ cluster }, counts.drift);
  }
}
