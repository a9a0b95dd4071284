import { Type, type Static } from '@sinclair/typebox';
import { customResourceDefinition, healthRuleGroup, healthRuleKind, kindObjectSchema, withCelRules, type KubernetesManifest } from '@tidemark/contracts';
/** healthRuleCrdHeader opens deploy/crds/healthrules.tidemark.dev.yaml. */
export const healthRuleCrdHeader = '# Generated from the HealthRule kind (libs/kinds/src/health/cel) by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n' +
  '# Tidemark reads HealthRule objects from Git and never applies them; this CRD lets an API server check them\n' +
  '# (kubectl apply --dry-run=server in CI, or a cluster that keeps them), and gives editors the schema.\n';

const expression = (says: string) => Type.String({ minLength: 1, maxLength: 4096, description: `A CEL expression over apiVersion, kind, metadata, spec and status that holds when the object ${says}.` });
// The same forms compileHealthRule accepts, so admission and Tidemark refuse the same apiVersions and kinds.
const apiVersionPattern = '^([a-z0-9.-]+/)?v[0-9]+((alpha|beta)[0-9]+)?$';
const kindPattern = '^[A-Z][A-Za-z0-9]*$';

/**
 * HealthRuleSpec is one kind's health in CEL, as Flux's healthCheckExprs: `current` says it is
 * Ready, `failed` that it failed, `inProgress` that it is still getting there. The HealthRule CRD
 * and HealthExpressions (also what the config file declares) are generated from it.
 */
export const HealthRuleSpec = Type.Object({
  apiVersion: Type.String({ pattern: apiVersionPattern, maxLength: 253, description: 'The apiVersion of the kind this rule judges; it applies to every version of its group.' }),
  kind: Type.String({ pattern: kindPattern, maxLength: 63, description: 'The kind this rule judges, as the API spells it.' }),
  current: expression('is Ready'),
  inProgress: Type.Optional(expression('is still getting there (tried first)')),
  failed: Type.Optional(expression('failed (tried before current)')),
});

/** HealthRuleSpecOf is the TS type of HealthRuleSpec. */
export type HealthRuleSpecOf = Static<typeof HealthRuleSpec>;

const notBlank = (field: string) => ({ rule: `!has(self.${field}) || self.${field}.matches('[^ \\t\\n]')`, message: `${field} must not be blank`, fieldPath: `.${field}` });

/**
 * healthRuleCrd is the HealthRule kind's CRD. The API server cannot parse CEL held in a string,
 * so admission checks the shape (required fields, apiVersion and kind forms, no blank or
 * duplicate expression) and Tidemark compiles the expressions when it reads the revision.
 */
export function healthRuleCrd(): KubernetesManifest {
  const spec = withCelRules(HealthRuleSpec, [
    notBlank('current'), notBlank('inProgress'), notBlank('failed'),
    { rule: '!has(self.failed) || self.failed != self.current', message: 'failed and current must differ: the same expression cannot say both', fieldPath: '.failed' },
  ]);
  return customResourceDefinition({
    group: healthRuleGroup,
    scope: 'Namespaced',
    names: { kind: healthRuleKind, listKind: `${healthRuleKind}List`, plural: 'healthrules', singular: 'healthrule', categories: ['tidemark'] },
    versions: [{
      name: 'v1alpha1',
      storage: true,
      columns: [
        { name: 'For', type: 'string', jsonPath: '.spec.kind' },
        { name: 'APIVersion', type: 'string', jsonPath: '.spec.apiVersion' },
      ],
      schema: kindObjectSchema(spec, undefined),
    }],
  });
}
