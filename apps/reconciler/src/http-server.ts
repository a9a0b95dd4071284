import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Tracer } from '@tidemark/tracing';
import { RedisDeliveryLog, registerWebhookRoutes, type Poller, type WebhookDelivery, type WebhookHook, type WebhookPreviewRequest } from '@tidemark/poller';
import { AuditLog } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';
import type { ReconcilerMetrics } from './metrics/reconciler-metrics';
import type { RedisClient } from '@tidemark/contracts';
import type { PreviewQueue } from '@tidemark/queue';
import type { PushPathMark } from './push-path-marks';

export interface HttpServer {
  /** host:port the server listens on. */
  address: string;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  config: ReconcilerConfig;
  log: Logger;
  redis: RedisClient;
  /** The deployment's Redis key prefix (RecordKeys.prefix): webhook deliveries are remembered under it. @defaultValue 'tidemark' */
  recordPrefix?: string;
  poller?: Poller;
  metrics?: ReconcilerMetrics;
  /** The webhook of a Source object, by source name. */
  findWebhook?: (source: string) => Promise<WebhookHook | undefined>;
  /** Queues previews of pushed branches and pull requests; `followedBranch` is the branch a source applies (not previewed). */
  previews?: { queue: PreviewQueue; followedBranch(source: string): string | undefined } | undefined;
  /** Why served namespaces' Sources or Secrets may not be read now: shown by /readyz, which stays ready for the others. */
  forbiddenSourceWatches?: () => string[];
  /** Told when a verified push arrives (bench/e2e's breakdown). @defaultValue none */
  mark?: PushPathMark | undefined;
  /** A verified push starts a trace. @defaultValue noTracing */
  tracer?: Tracer;
}

/**
 * startHttpServer serves /healthz (the process runs), /readyz (Redis answers; with the served
 * namespaces whose Sources or Secrets became forbidden, if any) and, on a
 * process that polls, the webhook receiver, whose verified pushes trigger the source's poll,
 * and /metrics for Prometheus.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { config, redis, poller } = options;
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, requestTimeout: 15_000 });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await redis.ping().then(() => true, () => false);
    const forbidden = options.forbiddenSourceWatches?.() ?? [];
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'redis unreachable', ...(forbidden.length > 0 ? { sourceWatchesForbidden: forbidden } : {}) });
  });
  const metrics = options.metrics;
  const token = config.http.metricsToken;
  if (metrics) {
    app.get('/metrics', async (request, reply) => {
      if (token !== undefined && !bearerMatches(request, token)) return reply.code(401).send({ code: 'Unauthenticated', message: 'The metrics endpoint needs its bearer token.' });
      return reply.type(metrics.contentType).send(await metrics.render());
    });
  }
  if (poller && (config.webhooks.length > 0 || options.findWebhook)) {
    await registerWebhookRoutes(app, {
      hooks: config.webhooks,
      // In Redis: a redelivery that reaches the other replica is still the same delivery.
      deliveries: new RedisDeliveryLog({ redis, prefix: options.recordPrefix ?? 'tidemark' }),
      ...(options.findWebhook ? { findHook: options.findWebhook } : {}),
      onPush: async (source, span, announced) => {
        options.mark?.('webhook-received', { source });
        options.log.info({ source }, 'webhook push; polling now');
        metrics?.webhookArrived(source);
        await poller.pushed(source, span, announced);
      },
      ...(options.tracer ? { tracer: options.tracer } : {}),
      ...(options.previews ? { onPreview: previewQueuer(options.previews, options.log, new AuditLog({ redis, prefix: options.recordPrefix ?? 'tidemark' })) } : {}),
    });
  }
  await app.listen({ port: config.http.port, host: config.http.host });
  const address = app.server.address();
  return {
    address: address && typeof address === 'object' ? `${address.address}:${address.port}` : `${config.http.host}:${config.http.port}`,
    close: () => app.close(),
  };
}

/**
 * previewQueuer queues a webhook's preview, except of the branch the source applies (its poll
 * covers that), and records it in the audit trail: the actor is the webhook of the source.
 */
function previewQueuer(previews: NonNullable<HttpServerOptions['previews']>, log: Logger, audit: AuditLog) {
  return async (source: string, request: WebhookPreviewRequest, from?: WebhookDelivery): Promise<void> => {
    if (request.ref === previews.followedBranch(source) && !request.pullRequest) return;
    const queued = await previews.queue.enqueue({ source, ...request, trigger: 'webhook', requestedAt: new Date().toISOString() });
    log.info({ source, ref: request.ref, revision: request.revision, pullRequest: request.pullRequest?.number, status: queued.status }, 'webhook: preview queued');
    const parameters = { ref: request.ref, ...(request.revision ? { revision: request.revision } : {}), ...(request.pullRequest ? { pullRequest: request.pullRequest.number } : {}), ...(from?.delivery ? { delivery: from.delivery } : {}), queue: queued.status };
    const record = await audit.append({
      actor: { name: `webhook:${source}`, via: 'webhook' }, action: 'preview.request', target: { type: 'source', name: source },
      parameters, result: 'ok', status: 202, ...(from ? { requestId: from.requestId, client: from.client } : {}),
    }).catch((error: unknown) => {
      log.error({ err: error, source }, 'audit: the webhook preview could not be recorded');
      return undefined;
    });
    if (record) log.info({ audit: record }, `audit: ${record.actor.name} ${record.action} ${source}: ok`);
  };
}

/** bearerMatches compares a request's bearer token with the expected one in constant time. */
function bearerMatches(request: FastifyRequest, expected: string): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const left = Buffer.from(presented);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}
