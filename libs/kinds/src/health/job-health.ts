import type { HealthRule } from './health-rule';
import { conditionMessage, conditionOf, describe, numberAt, statusOf } from './status-fields';

/** jobHealth: Ready when Complete, Failed when Failed, otherwise still running or suspended. */
export const jobHealth: HealthRule = {
  group: 'batch',
  kind: 'Job',
  evaluate(live) {
    const name = describe(live);
    if (conditionOf(live, 'Complete')?.status === 'True') {
      return { status: 'Ready', message: `${name} completed.` };
    }
    const failed = conditionOf(live, 'Failed');
    if (failed?.status === 'True') {
      return { status: 'Failed', message: `${name} failed${conditionMessage(failed)}; check its pods' logs, then change the Job to run it again.` };
    }
    if (conditionOf(live, 'Suspended')?.status === 'True') {
      return { status: 'Progressing', message: `${name} is suspended; set spec.suspend to false to run it.` };
    }
    const active = numberAt(statusOf(live), 'active');
    return { status: 'Progressing', message: `${name} is running (${active} active pods).` };
  },
};
