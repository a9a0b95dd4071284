// Owns: notifications: which transitions of the recorded facts (object readiness and drift from the status
//   store, cluster health, freezes, sync windows, source polls) are news, the alerts that filter them, the payloads of a generic
//   HMAC-signed webhook, Slack and Microsoft Teams, and their delivery through BullMQ queues of its own (one
//   per provider: rate limit, retries, timeout).
// Entry points: Notifier, NotificationQueues.
// Records: the last facts it notified about (notify:state) and its delivery queues.
// May import: @tidemark/contracts, @tidemark/queue, @tidemark/status-store.

export { Notifier, type NotifierOptions, type NotificationSink } from './notifier';
export { NotificationQueues, type NotificationQueuesOptions, type NotificationJob } from './notification-queues';
export { NotificationReason, notificationReasons, type NotificationEvent, type InvolvedObject, type Severity } from './notification-event';
export type { NotificationAlert, NotificationProvider, ProviderType } from './notify-options';
export { SecretText } from './secret-text';
export { addressProblem, type Credential, type CredentialReader } from './credential';
export type { TransitionFact } from './transition-fact';
export { DeliveryError } from './errors/delivery-error';
