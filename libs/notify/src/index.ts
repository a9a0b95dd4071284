// Owns: notifications: which transitions of the recorded facts (object readiness and drift from the status
//   store, cluster health, freezes, sync windows, source polls) are news, the alerts that filter them, the payloads of a generic
//   HMAC-signed webhook, Slack and Microsoft Teams, and their delivery through BullMQ queues of its own (one
//   per provider: rate limit, retries, timeout).
// Entry points: createNotifications (the notifier and its queues as a part; providers' Secret keys are read
//   through libs/cluster at each request), notificationsConfig (the notifications section of tidemark.yaml),
//   Notifier, NotificationQueues.
// Records: the last facts it notified about (notify:state) and its delivery queues.
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/queue, @tidemark/status-store.

export { Notifier } from './notifier';
export { NotificationQueues } from './notification-queues';
export type { NotificationAlert, NotificationProvider } from './notify-options';
export { SecretText } from './secret-text';
export { createNotifications, providerWithReaders } from './notifications-part';
export { NotificationsInput, notificationsConfig, type NotificationsConfig } from './notifications-config';
