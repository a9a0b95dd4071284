import { Type } from '@sinclair/typebox';
import { intOrString } from '../../shared/schema-parts';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** DisruptionBudgetSettings is spec.features.disruptionBudget. */
export type DisruptionBudgetSettings = { enabled: boolean; minAvailable: number | string; maxUnavailable: number | string };

const id = 'disruptionBudget';

/** disruptionBudgetFeature adds a PodDisruptionBudget; maxUnavailable 1 when neither bound is set. */
export const disruptionBudgetFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn the disruption budget on.' })),
    minAvailable: Type.Optional(intOrString('Pods (or a percentage) that must stay available.')),
    maxUnavailable: Type.Optional(intOrString('Pods (or a percentage) that may be unavailable; 1 when neither is set.')),
  }, {
    description: 'Limit voluntary disruptions (node drains) with a PodDisruptionBudget.',
    'x-kubernetes-validations': [{ rule: '!(has(self.minAvailable) && has(self.maxUnavailable))', message: 'set features.disruptionBudget.minAvailable or maxUnavailable, not both' }],
  }),
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
