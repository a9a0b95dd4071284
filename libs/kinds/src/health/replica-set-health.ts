import type { HealthRule } from './health-rule';
import { conditionMessage, conditionOf, describe, generationLag, numberAt, specOf, statusOf } from './status-fields';

/** replicaSetHealth: Ready when every desired replica is available; Failed on ReplicaFailure. */
export const replicaSetHealth: HealthRule = {
  group: 'apps',
  kind: 'ReplicaSet',
  evaluate(live) {
    const lag = generationLag(live);
    if (lag) {
      return lag;
    }
    const failure = conditionOf(live, 'ReplicaFailure');
    if (failure?.status === 'True') {
      return { status: 'Failed', message: `${describe(live)} cannot create pods${conditionMessage(failure)}; check quotas and the pod template.` };
    }
    const desired = numberAt(specOf(live), 'replicas', 1);
    const available = numberAt(statusOf(live), 'availableReplicas');
    const status = available >= desired ? 'Ready' : 'Progressing';
    return { status, message: `${describe(live)} has ${available} of ${desired} replicas available.` };
  },
};
