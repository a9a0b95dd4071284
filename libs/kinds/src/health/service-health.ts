import { isPlainObject } from '../shared/plain-object';
import type { HealthRule } from './health-rule';
import { describe, specOf, statusOf } from './status-fields';

/** serviceHealth: a LoadBalancer Service is Ready once it has an external address; others at once. */
export const serviceHealth: HealthRule = {
  group: '',
  kind: 'Service',
  evaluate(live) {
    const name = describe(live);
    if (specOf(live).type !== 'LoadBalancer') {
      return { status: 'Ready', message: `${name} is ready.` };
    }
    const loadBalancer = statusOf(live).loadBalancer;
    const ingress = isPlainObject(loadBalancer) ? loadBalancer.ingress : undefined;
    if (Array.isArray(ingress) && ingress.length > 0) {
      return { status: 'Ready', message: `${name} has an external address.` };
    }
    return { status: 'Progressing', message: `${name} is waiting for a load balancer address; check that the cluster has a load-balancer controller.` };
  },
};
