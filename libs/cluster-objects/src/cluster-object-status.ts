import { ConditionType, setCondition, type Condition } from '@tidemark/contracts';

/** ClusterConditionType: Reachable says the API server answers; Ready that the cluster is served. */
export const ClusterConditionType = { Reachable: 'Reachable', Ready: ConditionType.Ready } as const;

/** Reasons a Cluster's conditions give. */
export const ClusterReason = {
  Connected: 'Connected',
  Unreachable: 'Unreachable',
  /** Not contacted yet, or not served (so not contacted). */
  NotChecked: 'NotChecked',
  Served: 'Served',
  InvalidCluster: 'InvalidCluster',
  KubeconfigSecretNotFound: 'KubeconfigSecretNotFound',
  InvalidKubeconfig: 'InvalidKubeconfig',
  /** A config-file cluster has the name: the Cluster is not served. */
  NameClash: 'NameClash',
  /** Deleted with prune: its objects are being pruned before it goes. */
  Pruning: 'Pruning',
} as const;

/** ClusterObjectStatus is what Tidemark writes to a Cluster's /status: never a credential. */
export interface ClusterObjectStatus {
  observedGeneration: number;
  conditions: Condition[];
  serverVersion?: string;
  lastContact?: string;
}

/** ClusterObservation is what the controller knows of a Cluster at one moment. */
export interface ClusterObservation {
  generation: number;
  /** Why it is not served (invalid spec, Secret, kubeconfig, name clash, pruning), or undefined when it is. */
  problem?: { reason: string; message: string };
  /** The last answer of its API server, or why it failed; undefined before the first probe. */
  contact?: { ok: true; serverVersion: string; at: string } | { ok: false; message: string; at: string };
}

/**
 * clusterStatus builds a Cluster's status from an observation. Ready is True only for a served
 * cluster whose API server answered; a served cluster that does not answer is Reachable=False and
 * Ready=False (its queue is paused by the health monitor meanwhile). serverVersion and lastContact
 * keep their last values across failures: the status is written by server-side apply, so a field
 * left out would be removed.
 */
export function clusterStatus(observation: ClusterObservation, previous: Partial<ClusterObjectStatus>, now = new Date()): ClusterObjectStatus {
  const { generation, contact } = observation;
  const reachable = reachableOf(observation);
  let conditions = setCondition(previous.conditions ?? [], { type: ClusterConditionType.Reachable, observedGeneration: generation, ...reachable }, now);
  conditions = setCondition(conditions, { type: ClusterConditionType.Ready, observedGeneration: generation, ...readyOf(observation, reachable) }, now);
  const answered = contact?.ok ? contact : undefined;
  const last = answered ? { serverVersion: answered.serverVersion, lastContact: answered.at } : previous;
  return {
    observedGeneration: generation,
    conditions,
    ...(last.serverVersion ? { serverVersion: last.serverVersion } : {}),
    ...(last.lastContact ? { lastContact: last.lastContact } : {}),
  };
}

type ConditionVerdict = Pick<Condition, 'status' | 'reason' | 'message'>;

function reachableOf({ problem, contact }: ClusterObservation): ConditionVerdict {
  if (!contact) return { status: 'Unknown', reason: ClusterReason.NotChecked, message: problem ? 'Not contacted: the cluster is not served.' : 'Not contacted yet.' };
  if (contact.ok) return { status: 'True', reason: ClusterReason.Connected, message: `The API server answered (${contact.serverVersion}).` };
  return { status: 'False', reason: ClusterReason.Unreachable, message: contact.message };
}

function readyOf({ problem }: ClusterObservation, reachable: ConditionVerdict): ConditionVerdict {
  if (problem) return { status: 'False', reason: problem.reason, message: problem.message };
  if (reachable.status === 'True') return { status: 'True', reason: ClusterReason.Served, message: 'Its queue worker, watches and health checks run; placement targets it.' };
  return { status: 'False', reason: reachable.reason, message: reachable.message };
}
