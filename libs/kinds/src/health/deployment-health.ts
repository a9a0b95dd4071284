import type { Health, KubernetesManifest } from '../kind-plugin';
import type { HealthRule } from './health-rule';
import { conditionMessage, conditionOf, describe, generationLag, numberAt, specOf, statusOf } from './status-fields';

/** deploymentHealth: Ready once the latest generation is rolled out and every replica is available. */
export const deploymentHealth: HealthRule = {
  group: 'apps',
  kind: 'Deployment',
  evaluate: (live) => generationLag(live) ?? progressDeadline(live) ?? rollout(live),
};

function progressDeadline(live: KubernetesManifest): Health | undefined {
  const progressing = conditionOf(live, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return { status: 'Failed', message: `${describe(live)} exceeded its progress deadline${conditionMessage(progressing)}; check the new pods' events and logs.` };
  }
  return undefined;
}

function rollout(live: KubernetesManifest): Health {
  const status = statusOf(live);
  const desired = numberAt(specOf(live), 'replicas', 1);
  const updated = numberAt(status, 'updatedReplicas');
  const available = numberAt(status, 'availableReplicas');
  const total = numberAt(status, 'replicas');
  const name = describe(live);
  if (updated < desired) {
    return { status: 'Progressing', message: `${name} has ${updated} of ${desired} replicas updated to the latest pod template.` };
  }
  if (total > updated) {
    return { status: 'Progressing', message: `${name} is waiting for ${total - updated} old replicas to terminate.` };
  }
  if (available < desired) {
    return { status: 'Progressing', message: `${name} has ${available} of ${desired} replicas available; check the pods' readiness and events.` };
  }
  const availableCondition = conditionOf(live, 'Available');
  if (availableCondition?.status === 'False') {
    return { status: 'Progressing', message: `${name} is not available${conditionMessage(availableCondition)}.` };
  }
  return { status: 'Ready', message: `${name} has ${available} of ${desired} replicas available.` };
}
