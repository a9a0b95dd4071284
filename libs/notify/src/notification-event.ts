/** Severity follows Flux: an alert at `info` receives everything, at `error` only errors. */
export type Severity = 'info' | 'error';

/** NotificationReason is what happened, a stable PascalCase word alerts can filter on. */
export const NotificationReason = {
  /** An object's Ready condition became False for a failure. */
  NotReady: 'NotReady',
  /** A terminal failure: Stalled=True, no retry until the spec changes. */
  Stalled: 'Stalled',
  /** Ready=False while the object rolls out, waits for health or for a dependency. */
  Progressing: 'Progressing',
  /** Ready=True again after any of the above. */
  Ready: 'Ready',
  DriftDetected: 'DriftDetected',
  DriftHealed: 'DriftHealed',
  ClusterUnavailable: 'ClusterUnavailable',
  ClusterAvailable: 'ClusterAvailable',
  /** An operator froze a cluster: nothing is written to it until it is unfrozen. */
  ClusterFrozen: 'ClusterFrozen',
  ClusterUnfrozen: 'ClusterUnfrozen',
  /** A sync window (deny, or outside every allow window) started to hold a cluster for every source. */
  SyncWindowHolding: 'SyncWindowHolding',
  SyncWindowOpen: 'SyncWindowOpen',
  /** A poll failed: fetch, credentials, commit verification. */
  SourceFailed: 'SourceFailed',
  /** A poll succeeded but files in Git cannot be read or rendered. */
  SourceDegraded: 'SourceDegraded',
  SourceRecovered: 'SourceRecovered',
  /** A rollout's gate failed: later waves stay at the last good revision. */
  RolloutHalted: 'RolloutHalted',
  RolloutComplete: 'RolloutComplete',
  RolloutAborted: 'RolloutAborted',
  /** A revision waits for an operator (an approval, a manual sync). */
  RolloutWaiting: 'RolloutWaiting',
} as const;
export type NotificationReason = (typeof NotificationReason)[keyof typeof NotificationReason];

export const notificationReasons: readonly NotificationReason[] = Object.values(NotificationReason);

/** InvolvedObject names what an event is about: a Git object, a cluster or a source. */
export interface InvolvedObject {
  /** `WebApp`, or `Cluster` and `Source` for those. */
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  /** The status store's object key, for a Git object. */
  objectKey?: string;
}

/**
 * NotificationEvent is one transition, as queued and sent. It holds only names, a reason and a
 * message taken from conditions or records that are already redacted; never an object body.
 */
export interface NotificationEvent {
  /** Unique per transition: the queue's job id comes from it. */
  id: string;
  reason: NotificationReason;
  severity: Severity;
  /** A sentence, cut to maxMessageLength. */
  message: string;
  involvedObject: InvolvedObject;
  source?: string;
  cluster?: string;
  revision?: string;
  /** RFC 3339, when the transition was seen. */
  timestamp: string;
}

/** maxMessageLength bounds every message a payload carries. */
export const maxMessageLength = 1_000;
