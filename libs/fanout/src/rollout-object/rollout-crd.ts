import type { KubernetesManifest } from '@tidemark/contracts';
import { crdSchemaOf } from '@tidemark/source-objects';
import { RolloutObjectSpec, rolloutGroup, rolloutKind, rolloutVersion } from './rollout-kind';

/** rolloutCrdHeader opens deploy/crds/rollouts.tidemark.dev.yaml. */
export const rolloutCrdHeader = '# Generated from the Rollout kind (libs/fanout/src/rollout-object) by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n' +
  '# Tidemark reads Rollout objects from Git and never applies them; this CRD lets an API server check them\n' +
  '# (kubectl apply --dry-run=server in CI) and gives editors the schema.\n';

/** rolloutCrd is the Rollout kind's CRD; its spec schema is generated from the TypeBox type the reconciler parses with. */
export function rolloutCrd(): KubernetesManifest {
  const spec = crdSchemaOf(RolloutObjectSpec);
  spec['x-kubernetes-validations'] = [{ rule: 'has(self.waves) != (has(self.manualSync) && self.manualSync)', message: 'set waves or manualSync: true, not both and not neither' }];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `rollouts.${rolloutGroup}` },
    spec: {
      group: rolloutGroup,
      names: { kind: rolloutKind, listKind: `${rolloutKind}List`, plural: 'rollouts', singular: 'rollout', shortNames: ['tmrollout'], categories: ['tidemark'] },
      scope: 'Namespaced',
      versions: [{
        name: rolloutVersion, served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', required: ['spec'], properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec } } },
      }],
    },
  };
}
