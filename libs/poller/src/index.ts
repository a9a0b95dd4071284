// Owns: polling Git sources: one leader per source (a RedisLease), intervals and triggers, webhook
//   verification and delivery de-duplication, and writing the SourceStatus record (whose format and key live
//   in contracts), and on an agent the fetch-ahead of a source the hub's poll or webhook says moved (the
//   source-head hints it publishes).
// Entry points: Poller, registerWebhookRoutes, verifyWebhook, startSourcePrefetch.
// Records: SourceStatus (source:<source>) with its commit list, the poll lease (lease:<source>) and webhook
//   deliveries (webhook-delivery:<source>:<digest>).
// May import: @tidemark/contracts, @tidemark/git-source, @tidemark/tracing.

export { Poller } from './poller';
export type { PolledSource } from './source-runner';
export { verifyWebhook } from './webhook-signature';
export { registerWebhookRoutes, type WebhookHook, type WebhookDelivery } from './webhook-routes';
export { RedisDeliveryLog } from './webhook-deliveries';
export { type WebhookPreviewRequest } from './webhook-preview';
export { startSourcePrefetch } from './source-prefetch';
