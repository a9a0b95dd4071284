// Owns: polling Git sources: one leader per source (a RedisLease), intervals and triggers, webhook
//   verification and delivery de-duplication, and writing the SourceStatus record (whose format and key live
//   in contracts).
// Entry points: Poller, registerWebhookRoutes, verifyWebhook.
// Records: SourceStatus (source:<source>) with its commit list, the poll lease (lease:<source>) and webhook
//   deliveries (webhook-delivery:<source>:<digest>).
// May import: @tidemark/contracts, @tidemark/git-source, @tidemark/tracing.

export { Poller, type PollerOptions } from './poller';
export type { PolledSource } from './source-runner';
export { registerWebhookRoutes, type WebhookHook, type WebhookRoutesOptions, type WebhookDelivery } from './webhook-routes';
export { deliveryIdOf, deliveryDigest, MemoryDeliveryLog, RedisDeliveryLog, type DeliveryLog, type RedisDeliveryLogOptions } from './webhook-deliveries';
export { verifyWebhook, webhookProviders, type WebhookProvider, type WebhookVerdict } from './webhook-signature';
export { pollDelay } from './poll-delay';
export { previewRequestOf, type WebhookPreviewRequest } from './webhook-preview';
