import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { AuditLog, PruneHolds, StatusTally, writeSyncWindowPass, type StatusStore } from '@tidemark/status-store';
import { auditRoutes, recordActions } from './audit/audit-routes';
import { apiRoutes } from './api/api-routes';
import { errorHandler } from './api/error-handler';
import { ErrorBody } from './api/schemas';
import { authenticate } from './auth/authenticate';
import { loginRoutes } from './auth/login-routes';
import { LoginThrottle } from './auth/login-throttle';
import type { AccessToken } from './auth/principal';
import { SessionStore } from './auth/session-store';
import { TokenIndex } from './auth/token-index';
import { OidcClient } from './auth/oidc-client';
import { hasCliClient, OidcBearer } from './auth/oidc-bearer';
import { oidcRoutes } from './auth/oidc-routes';
import type { OidcSettings } from './auth/oidc-settings';
import { liveUpdates } from './live/live-updates';
import { TreeFeed } from './live/tree-feed';
import { registerMetrics } from './metrics-routes';
import { AccessLogController } from './access-log';
import { script, stylesheet } from './pages/assets';
import { pageRoutes } from './pages/page-routes';
import { SourceActions } from './view/source-actions';
import { pruneHoldRoutes } from './api/prune-hold-routes';
import { clusterFreezeRoutes } from './api/cluster-freeze-routes';
import { rolloutRoutes } from './api/rollout-routes';
import { RolloutActions } from './view/rollouts';
import { PendingRevisions } from './view/pending-revisions';
import { ClusterFreezes } from './view/cluster-freezes';
import { previewRoutes } from './api/preview-routes';
import type { PreviewQueue } from '@tidemark/queue';
import { Actions } from './view/actions';
import { DashboardData, type QueueAccess } from './view/dashboard-data';
import { StatusCache } from './view/status-cache';
import type { RedisClient } from '@tidemark/contracts';
import type { ClusterConnection } from '@tidemark/cluster';
import { WorkloadActions } from './workloads/workload-actions';
import { workloadRoutes } from './workloads/workload-routes';

/** DashboardDeps are injected, so tests build the app on a real Redis without listening. */
export interface DashboardDeps {
  statusStore: StatusStore;
  queues: QueueAccess;
  /** The preview queue: without it, previews can be read but not asked for (503). */
  previews?: Pick<PreviewQueue, 'enqueue'>;
  /** A normal connection (source records, health). */
  redis: RedisClient;
  /** A connection the dashboard alone uses, for pub/sub. */
  subscriber: RedisClient;
  /**
   * tokens: who may sign in. sessionSecret: key of the token fingerprints kept with each session
   * (a token that changes ends its sessions). sessionLifetimeMs: @defaultValue 12 hours.
   */
  auth: { tokens: readonly AccessToken[]; sessionSecret: string; secureCookies?: boolean; sessionLifetimeMs?: number; oidc?: OidcSettings };
  /** Clusters and sources to show before any record names them. */
  clusters?: readonly string[];
  sources?: readonly string[];
  /** When set, /metrics needs this bearer token (TIDEMARK_DASHBOARD_METRICS_TOKEN). */
  metricsToken?: string;
  /**
   * Addresses or CIDRs of the proxies (an Ingress) whose X-Forwarded-For names the client, so
   * throttling counts per real client (TIDEMARK_DASHBOARD_TRUSTED_PROXIES). @defaultValue none: the connection's address
   */
  trustedProxies?: readonly string[];
  /** Audit records kept in the Redis stream, about (TIDEMARK_DASHBOARD_AUDIT_MAX_RECORDS). @defaultValue 100000 */
  auditMaxRecords?: number;
  /**
   * The dashboard's own connections to clusters, for day-2 actions on managed workloads (restart,
   * Pods and logs, run a CronJob). Without one for a cluster, those answer 503. @defaultValue none
   */
  clusterConnections?: ReadonlyMap<string, ClusterConnection>;
  /** The ServiceAccount (namespace/name) each source's objects are acted on as, from the operator's configuration. @defaultValue the dashboard's own identity */
  sourceIdentities?: ReadonlyMap<string, { namespace: string; name: string }>;
  /** A trace UI's page of one trace, `{traceId}` standing for the id: history rows link to it. @defaultValue none */
  traceUrl?: string;
  /** @defaultValue false */
  logger?: boolean;
  /** Live-update batching window. @defaultValue 50 */
  liveBatchMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** replaceTokens swaps in a reloaded token list; returns how many sessions it ended. */
    replaceTokens(tokens: readonly AccessToken[]): Promise<number>;
  }
}

const securityHeaders = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

const noPreviewQueue: Pick<PreviewQueue, 'enqueue'> = {
  enqueue: () => Promise.reject(new Error('this dashboard has no preview queue')),
};

/** signOnOf builds single sign-on's relying party, and the verifier of the CLI's ID tokens when the CLI's client is named. */
function signOnOf(settings: OidcSettings | undefined): { signOn?: { client: OidcClient; settings: OidcSettings }; oidcBearer?: OidcBearer } {
  if (!settings) return {};
  const client = new OidcClient(settings);
  return { signOn: { client, settings }, ...(hasCliClient(settings) ? { oidcBearer: new OidcBearer(settings, client) } : {}) };
}

/**
 * buildDashboard returns the fastify app, not listening. The status cache starts in an onReady
 * hook and stops in onClose, so `app.ready()` / `app.close()` are the start and stop.
 */
export async function buildDashboard(deps: DashboardDeps): Promise<FastifyInstance> {
  // The status cache loads every record in onReady: 30,000 of them took over fastify's default 10 s
  // on a busy machine (load average 37), and the dashboard then failed to start.
  // One access-log line per request, not fastify's two (AccessLogController).
  // A route parameter may be a Source object's source name (up to 317 characters) or a URL-encoded ref.
  // The client address is the connection's, or from X-Forwarded-For only through the configured proxies.
  const trustProxy = deps.trustedProxies && deps.trustedProxies.length > 0 ? [...deps.trustedProxies] : false;
  const app = Fastify({ logger: deps.logger ?? false, logController: new AccessLogController(), trustProxy, pluginTimeout: 120_000, maxParamLength: 1024 });
  const cache = new StatusCache({ store: deps.statusStore, subscriber: deps.subscriber, batchMs: deps.liveBatchMs ?? 50 });
  const trees = new TreeFeed({ store: deps.statusStore, subscriber: deps.subscriber });
  // /metrics' counts of records; its own subscriber opens at the first scrape.
  const statusCounts = new StatusTally({ redis: deps.redis, keys: deps.statusStore.keys });
  const data = new DashboardData({
    cache, store: deps.statusStore, queues: deps.queues, redis: deps.redis,
    clusters: deps.clusters ?? [], sources: deps.sources ?? [],
  });
  const actions = new Actions(deps.statusStore, deps.queues, (cluster, objectKey, by) => writeSyncWindowPass(deps.redis, deps.statusStore.keys, cluster, objectKey, { by, at: new Date().toISOString() }));
  const sourceActions = new SourceActions(data, deps.redis, deps.statusStore.keys);
  const tokens = new TokenIndex(deps.auth.tokens);
  const sessions = new SessionStore({ redis: deps.redis, keys: deps.statusStore.keys, tokens, secret: deps.auth.sessionSecret, lifetimeMs: deps.auth.sessionLifetimeMs });
  // A reloaded token list ends, at once, every session of a token that was removed or changed.
  app.decorate('replaceTokens', async (next: readonly AccessToken[]) => {
    let ended = 0;
    for (const name of tokens.replace(next)) ended += await sessions.endAllOf(name);
    return ended;
  });

  // Register external plugins first: swagger sees every route added after it.
  await app.register(swagger, {
    openapi: {
      info: { title: 'Tidemark dashboard API', version: '0.1.0', description: 'Status of every object on every cluster; actions need the operator role.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie', name: 'tidemark_session' } } },
      security: [{ bearer: [] }, { session: [] }],
    },
  });
  app.addSchema(ErrorBody);
  app.setErrorHandler(errorHandler);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  // Sign-out is a form whose answer may redirect to the provider's end-session endpoint: form-action allows its origin.
  const headers = deps.auth.oidc ? { ...securityHeaders, 'content-security-policy': securityHeaders['content-security-policy'].replace("form-action 'self'", `form-action 'self' ${new URL(deps.auth.oidc.issuer).origin}`) } : securityHeaders;
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(headers);
  });
  app.addHook('onReady', async () => { await cache.start(); await trees.start(); });
  app.addHook('onClose', async () => { await trees.stop(); await cache.stop(); await statusCounts.stop(); });

  // Liveness says the process serves; readiness says it can also read Redis. A Redis outage
  // takes the dashboard out of the Service without restarting it.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const redis = await deps.redis.ping().then(() => 'ok', () => 'down');
    return reply.status(redis === 'ok' ? 200 : 503).send({ status: redis === 'ok' ? 'ok' : 'degraded', redis });
  });
  app.get('/assets/app.css', { schema: { hide: true } }, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(stylesheet));
  app.get('/assets/app.js', { schema: { hide: true } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=300').send(script));
  registerMetrics(app, { statusStore: deps.statusStore, statusCounts, queues: deps.queues, ...(deps.metricsToken ? { token: deps.metricsToken } : {}) });
  // One throttle for sign-ins and bearer tokens: both guess the same tokens. In Redis, so that
  // every replica counts the same failures.
  const throttle = new LoginThrottle({ redis: deps.redis, prefix: deps.statusStore.keys.prefix });
  const audit = new AuditLog({ redis: deps.redis, prefix: deps.statusStore.keys.prefix, ...(deps.auditMaxRecords ? { maxRecords: deps.auditMaxRecords } : {}) });
  const secureCookies = deps.auth.secureCookies ?? false;
  const { signOn, oidcBearer } = signOnOf(deps.auth.oidc);
  await app.register(loginRoutes, { sessions, secureCookies, throttle, audit, ...(signOn ? { signOn: signOn.client } : {}) });
  if (signOn) await app.register(oidcRoutes, { oidc: signOn.client, settings: signOn.settings, sessions, redis: deps.redis, keyPrefix: deps.statusStore.keys.prefix, audit, secureCookies });

  // Everything below needs a principal: the hook is encapsulated in this scope.
  await app.register(async (scope) => {
    scope.addHook('onRequest', authenticate({ tokens, sessions, throttle, signOn: signOn !== undefined, ...(oidcBearer ? { oidcBearer } : {}) }));
    const workloads = new WorkloadActions({ store: deps.statusStore, connectionFor: (cluster) => deps.clusterConnections?.get(cluster), ...(deps.sourceIdentities ? { identityFor: (source: string) => deps.sourceIdentities?.get(source) } : {}) });
    // Every action below, done or refused (401, 403, 429 included), is an audit record; a done
    // action on one object is also an Event on its live object, where the dashboard can prove it.
    scope.addHook('onSend', recordActions(audit, (event, request) => workloads.announce(event, request.principal, request.log)));
    // Read-your-writes: every view a request shows holds every status write made before it, so
    // the badge, the counts, the detail page and the queue never disagree about a finished run.
    scope.addHook('preHandler', async (request) => {
      if (request.method === 'GET') await cache.sync();
    });
    scope.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await scope.register(apiRoutes, { prefix: '/api', data, actions, sourceActions });
    await scope.register(pageRoutes, { data, actions, sourceActions, ...(deps.traceUrl ? { traceUrl: deps.traceUrl } : {}) });
    await scope.register(pruneHoldRoutes, { holds: new PruneHolds(deps.redis, deps.statusStore.keys.prefix), queues: deps.queues, clusters: () => deps.statusStore.clusters() });
    await scope.register(clusterFreezeRoutes, { freezes: new ClusterFreezes({ redis: deps.redis, store: deps.statusStore, queues: deps.queues, clusterNames: () => data.clusterNames() }) });
    const rollouts = new RolloutActions({ redis: deps.redis, keys: deps.statusStore.keys });
    const pending = new PendingRevisions({ redis: deps.redis, keys: deps.statusStore.keys, rollouts, previews: deps.previews ?? noPreviewQueue });
    await scope.register(rolloutRoutes, { rollouts, pending });
    await scope.register(previewRoutes, { previews: deps.previews ?? noPreviewQueue, redis: deps.redis, keys: deps.statusStore.keys });
    await scope.register(liveUpdates, { cache, trees });
    await scope.register(auditRoutes, { audit });
    await scope.register(workloadRoutes, { prefix: '/api', workloads });
  });
  return app;
}
