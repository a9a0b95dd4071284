// Owns: notifications: which transitions of the recorded facts (object readiness and drift from the status
//   store, cluster health, freezes, sync windows, source polls) are news, the alerts that filter them, the payloads of a generic
//   HMAC-signed webhook, Slack and Microsoft Teams, and their delivery through BullMQ queues of its own (one
//   per provider: rate limit, retries, timeout).
// Entry points: Notifier, NotificationQueues.
// Records: the last facts it notified about (notify:state) and its delivery queues.
// May import: @tidemark/contracts, @tidemark/queue, @tidemark/status-store.

export { Notifier } from './notifier';
export { NotificationQueues } from './notification-queues';
export { NotificationReason, notificationReasons } from './notification-event';
export type { NotificationAlert, NotificationProvider } from './notify-options';
export { SecretText } from './secret-text';
export { addressProblem, type Credential } from './credential';
