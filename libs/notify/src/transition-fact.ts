import type { NotificationEvent } from './notification-event';

/** EventDraft is a NotificationEvent before it is given its id and time. */
export type EventDraft = Omit<NotificationEvent, 'id' | 'timestamp'>;

/**
 * TransitionFact is one thing whose state is tracked: an object's readiness or drift, a cluster's
 * availability, a source's poll. `state` is compared with the last state notified under `key`;
 * only a different one is a transition, and `eventFor` says what, if anything, to send for it.
 */
export interface TransitionFact {
  /** `object|<cluster>|<objectKey>|ready`, `cluster|<name>`, `source|<name>`. */
  key: string;
  state: string;
  /** When the record saying so was written (RFC 3339): an older reading never replaces a newer one. */
  at: string;
  /** previous is undefined when nothing was ever recorded under the key (a new object, or a first start). */
  eventFor(previous: string | undefined): EventDraft | undefined;
}
