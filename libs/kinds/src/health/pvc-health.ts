import type { HealthRule } from './health-rule';
import { describe, specOf, statusOf } from './status-fields';

/** pvcHealth: Ready when Bound, Failed when Lost, otherwise waiting for a volume. */
export const pvcHealth: HealthRule = {
  group: '',
  kind: 'PersistentVolumeClaim',
  evaluate(live) {
    const name = describe(live);
    const phase = statusOf(live).phase;
    if (phase === 'Bound') {
      return { status: 'Ready', message: `${name} is bound.` };
    }
    if (phase === 'Lost') {
      return { status: 'Failed', message: `${name} lost its volume; restore the PersistentVolume or recreate the claim.` };
    }
    const storageClass = specOf(live).storageClassName;
    const classText = typeof storageClass === 'string' ? ` of storage class ${storageClass}` : '';
    return { status: 'Progressing', message: `${name} is waiting for a volume${classText} to bind; check the provisioner and the claim's events.` };
  },
};
