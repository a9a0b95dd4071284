import type { HealthRule } from './health-rule';
import { conditionMessage, conditionOf, describe } from './status-fields';

/** crdHealth: Ready when the names are accepted and the API server serves the CRD (Established). */
export const crdHealth: HealthRule = {
  group: 'apiextensions.k8s.io',
  kind: 'CustomResourceDefinition',
  evaluate(live) {
    const name = describe(live);
    const namesAccepted = conditionOf(live, 'NamesAccepted');
    if (namesAccepted?.status === 'False') {
      return { status: 'Failed', message: `${name} names were not accepted${conditionMessage(namesAccepted)}; choose a plural, kind or short name no other CRD uses.` };
    }
    const established = conditionOf(live, 'Established');
    if (established?.status === 'True' && namesAccepted?.status === 'True') {
      return { status: 'Ready', message: `${name} is established.` };
    }
    return { status: 'Progressing', message: `${name} is not established yet${established ? conditionMessage(established) : ''}.` };
  },
};
