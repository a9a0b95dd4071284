// libs/poller owns polling Git sources: one leader per source (a RedisLease), intervals and
// triggers, webhook verification, and writing the SourceStatus record (whose format and key
// live in contracts). It may import contracts and git-source.

export { Poller, type PollerOptions } from './poller';
export type { PolledSource } from './source-runner';
export { registerWebhookRoutes, type WebhookHook, type WebhookRoutesOptions } from './webhook-routes';
export { deliveryIdOf, deliveryDigest, MemoryDeliveryLog, RedisDeliveryLog, type DeliveryLog, type RedisDeliveryLogOptions } from './webhook-deliveries';
export { verifyWebhook, webhookProviders, type WebhookProvider, type WebhookVerdict } from './webhook-signature';
export { pollDelay } from './poll-delay';
export { previewRequestOf, type WebhookPreviewRequest } from './webhook-preview';
