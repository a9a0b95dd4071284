import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** DisruptionBudgetSettings is spec.features.disruptionBudget. */
export type DisruptionBudgetSettings = { enabled: boolean; minAvailable: number | string; maxUnavailable: number | string };

const id = 'disruptionBudget';
const intOrString = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

/** disruptionBudgetFeature adds a PodDisruptionBudget; maxUnavailable 1 when neither bound is set. */
export const disruptionBudgetFeature: WebAppFeature = {
  id,
  schema: {
    type: 'object',
    description: 'Limit voluntary disruptions (node drains) with a PodDisruptionBudget.',
    properties: {
      enabled: { type: 'boolean', default: false, description: 'Turn the disruption budget on.' },
      minAvailable: { ...intOrString, description: 'Pods (or a percentage) that must stay available.' },
      maxUnavailable: { ...intOrString, description: 'Pods (or a percentage) that may be unavailable; 1 when neither is set.' },
    },
    'x-kubernetes-validations': [{ rule: '!(has(self.minAvailable) && has(self.maxUnavailable))', message: 'set features.disruptionBudget.minAvailable or maxUnavailable, not both' }],
  },
  components: [{ name: 'pdb', apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' }],
  configure: () => ['pdb'],
  manage({ spec, identity }, managers) {
    const settings = settingsOf<DisruptionBudgetSettings>(spec, id);
    managers.field('pdb', ['spec', 'selector'], { matchLabels: { ...identity.selectorLabels } });
    if (settings.minAvailable !== undefined) {
      managers.field('pdb', ['spec', 'minAvailable'], settings.minAvailable);
    } else {
      managers.field('pdb', ['spec', 'maxUnavailable'], settings.maxUnavailable ?? 1);
    }
  },
};
