import type { HealthRule } from './health-rule';
import { conditionMessage, conditionOf, describe, numberAt, statusOf } from './status-fields';

/** hpaHealth: Failed when it cannot scale its target, Progressing while metrics are missing. */
export const hpaHealth: HealthRule = {
  group: 'autoscaling',
  kind: 'HorizontalPodAutoscaler',
  evaluate(live) {
    const name = describe(live);
    const ableToScale = conditionOf(live, 'AbleToScale');
    if (ableToScale?.status === 'False') {
      return { status: 'Failed', message: `${name} cannot scale its target${conditionMessage(ableToScale)}; check spec.scaleTargetRef.` };
    }
    const scalingActive = conditionOf(live, 'ScalingActive');
    if (scalingActive?.status === 'False') {
      return { status: 'Progressing', message: `${name} is not scaling yet${conditionMessage(scalingActive)}; check that metrics are available (metrics-server).` };
    }
    const status = statusOf(live);
    return { status: 'Ready', message: `${name} runs ${numberAt(status, 'currentReplicas')} replicas (desired ${numberAt(status, 'desiredReplicas')}).` };
  },
};
