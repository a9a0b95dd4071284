import type { Health, KubernetesManifest } from '../kind-plugin';
import { isPlainObject } from '../shared/plain-object';
import type { HealthRule } from './health-rule';
import { conditionOf, describe, statusOf } from './status-fields';

// Waiting reasons that do not fix themselves: a person must change the image, config or code.
const stuckReasons = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerConfigError']);

/** podHealth: Ready when Ready or Succeeded, Failed when Failed or a container is stuck. */
export const podHealth: HealthRule = {
  group: '',
  kind: 'Pod',
  evaluate(live) {
    const name = describe(live);
    const status = statusOf(live);
    if (status.phase === 'Succeeded') {
      return { status: 'Ready', message: `${name} succeeded.` };
    }
    if (status.phase === 'Failed') {
      const reason = typeof status.message === 'string' ? `: ${status.message}` : '';
      return { status: 'Failed', message: `${name} failed${reason}; check its logs.` };
    }
    return stuckContainer(live) ?? readiness(live);
  },
};

function stuckContainer(live: KubernetesManifest): Health | undefined {
  const statuses = statusOf(live).containerStatuses;
  for (const container of Array.isArray(statuses) ? statuses : []) {
    const waiting = isPlainObject(container) && isPlainObject(container.state) ? container.state.waiting : undefined;
    if (isPlainObject(waiting) && typeof waiting.reason === 'string' && stuckReasons.has(waiting.reason)) {
      return { status: 'Failed', message: `${describe(live)} container ${String(container.name)} is in ${waiting.reason}; fix its image or configuration.` };
    }
  }
  return undefined;
}

function readiness(live: KubernetesManifest): Health {
  const name = describe(live);
  if (conditionOf(live, 'Ready')?.status === 'True') {
    return { status: 'Ready', message: `${name} is ready.` };
  }
  return { status: 'Progressing', message: `${name} is not ready yet; check its readiness probe and events.` };
}
