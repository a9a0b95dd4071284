export { Poller, type PollerOptions } from './poller';
export type { PolledSource } from './source-runner';
export { SourceLease } from './source-lease';
export { readSourceStatus, sourceStatusKey, type SourceStatus } from './source-status';
export { registerWebhookRoutes, type WebhookHook, type WebhookRoutesOptions } from './webhook-routes';
export { verifyWebhook, webhookProviders, type WebhookProvider, type WebhookVerdict } from './webhook-signature';
export { pollDelay } from './poll-delay';
