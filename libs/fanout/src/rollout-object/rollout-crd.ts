import { customResourceDefinition, kindObjectSchema, withCelRules, type KubernetesManifest } from '@tidemark/contracts';
import { RolloutObjectSpec, rolloutGroup, rolloutKind, rolloutVersion } from './rollout-kind';

/** rolloutCrdHeader opens deploy/crds/rollouts.tidemark.dev.yaml. */
export const rolloutCrdHeader = '# Generated from the Rollout kind (libs/fanout/src/rollout-object) by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n' +
  '# Tidemark reads Rollout objects from Git and never applies them; this CRD lets an API server check them\n' +
  '# (kubectl apply --dry-run=server in CI) and gives editors the schema.\n';

/** rolloutCrd is the Rollout kind's CRD; its spec schema is generated from the TypeBox type the reconciler parses with. */
export function rolloutCrd(): KubernetesManifest {
  const spec = withCelRules(RolloutObjectSpec, [{ rule: 'has(self.waves) != (has(self.manualSync) && self.manualSync)', message: 'set waves or manualSync: true, not both and not neither' }]);
  return customResourceDefinition({
    group: rolloutGroup,
    scope: 'Namespaced',
    names: { kind: rolloutKind, listKind: `${rolloutKind}List`, plural: 'rollouts', singular: 'rollout', shortNames: ['tmrollout'], categories: ['tidemark'] },
    versions: [{ name: rolloutVersion, storage: true, schema: kindObjectSchema(spec, undefined) }],
  });
}
