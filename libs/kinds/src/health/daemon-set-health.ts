import type { HealthRule } from './health-rule';
import { describe, generationLag, numberAt, statusOf } from './status-fields';

/** daemonSetHealth: Ready when every scheduled node runs an updated, available pod. */
export const daemonSetHealth: HealthRule = {
  group: 'apps',
  kind: 'DaemonSet',
  evaluate(live) {
    const lag = generationLag(live);
    if (lag) {
      return lag;
    }
    const status = statusOf(live);
    // Its pod count comes from status, not spec: until the controller has written status once,
    // "0 of 0 pods" would read as Ready (seen on the rig's real controllers, just after create).
    if (typeof status.observedGeneration !== 'number') {
      return { status: 'Progressing', message: `${describe(live)} has no status from the daemonset controller yet; wait for it, or check that the controller is running.` };
    }
    const desired = numberAt(status, 'desiredNumberScheduled');
    const updated = numberAt(status, 'updatedNumberScheduled');
    const available = numberAt(status, 'numberAvailable');
    const name = describe(live);
    if (updated < desired) {
      return { status: 'Progressing', message: `${name} has ${updated} of ${desired} pods updated to the latest pod template.` };
    }
    if (available < desired) {
      return { status: 'Progressing', message: `${name} has ${available} of ${desired} pods available; check the pods on the remaining nodes.` };
    }
    return { status: 'Ready', message: `${name} has ${available} of ${desired} pods available.` };
  },
};
