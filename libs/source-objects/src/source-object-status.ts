import { ConditionType, Reason, setCondition, type Condition, type SourceStatus } from '@tidemark/contracts';

/** SourceObjectStatus is what Tidemark writes to a Source's /status: never a credential. */
export interface SourceObjectStatus {
  observedGeneration: number;
  conditions: Condition[];
  ref?: string;
  lastFetchedRevision?: string;
  lastCommitMessage?: string;
  lastPolledAt?: string;
  objects?: number;
  sourceErrors?: number;
  lastError?: string;
}

/** Every missing-Secret message starts so; the poller's record keeps only the message. */
export const secretNotFoundPrefix = 'Secret not found:';
/** Every message about a Secret that has not opted in for its Source starts so. */
export const secretNotAllowedPrefix = 'Secret not allowed:';

/** Reasons a Source's Ready condition gives besides the shared ones. */
export const SourceReason = {
  SecretNotFound: 'SecretNotFound',
  Pruning: 'Pruning',
  PruneBlocked: 'PruneBlocked',
  WaitingForFirstPoll: 'WaitingForFirstPoll',
  /** A Source with no identity (no serviceAccount, no operator default): refused, never run as the reconciler. */
  IdentityRequired: 'IdentityRequired',
  /** Its secretRef names a Secret that has not opted in for this Source. */
  SecretNotAllowed: 'SecretNotAllowed',
} as const;

/** PreviousStatus is the Source's live status, as far as a new status builds on it. */
export type PreviousStatus = Partial<Pick<SourceObjectStatus, 'conditions' | 'lastFetchedRevision' | 'lastCommitMessage' | 'objects'>>;

/**
 * statusFromPoll turns the poller's record of a source into a Source's status. The record's
 * messages were already scrubbed of credentials by the poller. A record without a revision (a
 * suspended poll, a failed one, a changed spec diffed from nothing) keeps what the Source showed
 * it fetched last: the status is written by server-side apply, so a field left out is removed.
 */
export function statusFromPoll(record: SourceStatus, generation: number, previous: PreviousStatus, now = new Date()): SourceObjectStatus {
  const ready = readyOf(record);
  const reconciling = record.state === undefined;
  let conditions = setCondition(previous.conditions ?? [], { type: ConditionType.Ready, observedGeneration: generation, ...ready }, now);
  conditions = setCondition(conditions, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: Reason.Succeeded, message: 'The spec is valid.' }, now);
  conditions = setCondition(conditions, { type: ConditionType.Reconciling, status: reconciling ? 'True' : 'False', observedGeneration: generation, reason: reconciling ? SourceReason.WaitingForFirstPoll : Reason.Succeeded, message: reconciling ? 'Waiting for the first poll.' : 'The last poll finished.' }, now);
  return {
    observedGeneration: generation,
    conditions,
    ...(record.ref ? { ref: record.ref } : {}),
    ...(record.revision ? fetchedOf({ lastFetchedRevision: record.revision, lastCommitMessage: record.commitMessage, objects: record.declaredObjects }) : fetchedOf(previous)),
    ...(record.sourceErrors !== undefined ? { sourceErrors: record.sourceErrors } : {}),
    ...(record.state === 'error' && record.error ? { lastError: record.error } : {}),
  };
}

function readyOf(record: SourceStatus): Pick<Condition, 'status' | 'reason' | 'message'> {
  switch (record.state) {
    case 'ok': return { status: 'True', reason: Reason.Succeeded, message: `Fetched revision ${record.revision?.slice(0, 12) ?? ''}.` };
    case 'degraded': return { status: 'True', reason: Reason.SourceInvalid, message: `Fetched revision ${record.revision?.slice(0, 12) ?? ''}; ${record.sourceErrors ?? 0} file(s) cannot be read.` };
    case 'suspended': return { status: 'False', reason: Reason.Suspended, message: 'Suspended: no fetches until it is resumed.' };
    case 'error': return { status: 'False', reason: errorReason(record.error), message: record.error ?? 'The last poll failed.' };
    default: return { status: 'Unknown', reason: SourceReason.WaitingForFirstPoll, message: 'Waiting for the first poll.' };
  }
}

function errorReason(error: string | undefined): string {
  if (error?.startsWith(secretNotFoundPrefix)) return SourceReason.SecretNotFound;
  if (error?.startsWith(secretNotAllowedPrefix)) return SourceReason.SecretNotAllowed;
  return Reason.FetchFailed;
}

/**
 * stalledStatus is the status of a Source that cannot run as written (a bad spec, a refused
 * reference). `reason` is SourceInvalid unless the refusal has a reason of its own (IdentityRequired).
 */
export function stalledStatus(message: string, generation: number, previous: PreviousStatus, now = new Date(), reason: string = Reason.SourceInvalid): SourceObjectStatus {
  let conditions = setCondition(previous.conditions ?? [], { type: ConditionType.Ready, status: 'False', observedGeneration: generation, reason, message }, now);
  conditions = setCondition(conditions, { type: ConditionType.Stalled, status: 'True', observedGeneration: generation, reason, message }, now);
  return { observedGeneration: generation, conditions, ...fetchedOf(previous), lastError: message };
}

/** BlockedObject is an object a deleted Source cannot prune, with its last run's failure. */
export interface BlockedObject {
  cluster: string;
  objectKey: string;
  message: string;
}

/**
 * pruningStatus says a deleted Source waits for its objects to be pruned. When some cannot be
 * (their last run failed: the API server refused the identity that prunes them, say), the reason is
 * PruneBlocked and the message names the first one, its cluster and the failure, and what lets the
 * Source go: fixing the failure, or the annotation tidemark.dev/prune: "false" (its objects stay).
 */
export function pruningStatus(left: number, generation: number, previous: PreviousStatus, now = new Date(), blocked: readonly BlockedObject[] = []): SourceObjectStatus {
  const [first] = blocked;
  const reason = first ? SourceReason.PruneBlocked : SourceReason.Pruning;
  const message = first
    ? `Deleting: ${left} object(s) this source applied are left, and ${blocked.length} cannot be pruned: ${first.objectKey} on cluster ${first.cluster}: ${clip(first.message)}${blocked.length > 1 ? ` (and ${blocked.length - 1} more)` : ''} The Source stays until they are pruned: fix that, or annotate the Source tidemark.dev/prune: "false" to leave its objects in the cluster and let it go.`
    : `Deleting: pruning ${left} object(s) this source applied before the Source goes.`;
  return { observedGeneration: generation, conditions: setCondition(previous.conditions ?? [], { type: ConditionType.Ready, status: 'False', observedGeneration: generation, reason, message }, now), ...fetchedOf(previous) };
}

/** clip keeps a status message readable: an API server's message can be long. */
function clip(message: string, max = 1_000): string {
  return message.length <= max ? message : `${message.slice(0, max)}…`;
}

/** fetchedOf gives the fields that say what was fetched last, leaving out the unknown ones. */
function fetchedOf(fetched: Omit<PreviousStatus, 'conditions'>): Pick<SourceObjectStatus, 'lastFetchedRevision' | 'lastCommitMessage' | 'objects'> {
  return {
    ...(fetched.lastFetchedRevision ? { lastFetchedRevision: fetched.lastFetchedRevision } : {}),
    ...(fetched.lastCommitMessage !== undefined ? { lastCommitMessage: fetched.lastCommitMessage } : {}),
    ...(fetched.objects !== undefined ? { objects: fetched.objects } : {}),
  };
}
