import { healthRuleGroup, healthRuleKind, type KubernetesManifest } from '@tidemark/contracts';

/** healthRuleCrdHeader opens deploy/crds/healthrules.tidemark.dev.yaml. */
export const healthRuleCrdHeader = '# Generated from the HealthRule kind (libs/kinds/src/health/cel) by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n' +
  '# Tidemark reads HealthRule objects from Git and never applies them; this CRD lets an API server check them\n' +
  '# (kubectl apply --dry-run=server in CI, or a cluster that keeps them), and gives editors the schema.\n';

const expression = (says: string) => ({ type: 'string', minLength: 1, maxLength: 4096, description: `A CEL expression over apiVersion, kind, metadata, spec and status that holds when the object ${says}.` });
// The same forms compileHealthRule accepts, so admission and Tidemark refuse the same apiVersions and kinds.
const apiVersionPattern = '^([a-z0-9.-]+/)?v[0-9]+((alpha|beta)[0-9]+)?$';
const kindPattern = '^[A-Z][A-Za-z0-9]*$';

/**
 * healthRuleCrd is the HealthRule kind's CRD: one kind's health in CEL, as Flux's healthCheckExprs.
 * The API server cannot parse CEL held in a string, so admission checks the shape (required
 * fields, apiVersion and kind forms, no blank or duplicate expression) and Tidemark compiles the
 * expressions when it reads the revision.
 */
export function healthRuleCrd(): KubernetesManifest {
  const notBlank = (field: string) => ({ rule: `!has(self.${field}) || self.${field}.matches('[^ \\t\\n]')`, message: `${field} must not be blank`, fieldPath: `.${field}` });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `healthrules.${healthRuleGroup}` },
    spec: {
      group: healthRuleGroup,
      names: { kind: healthRuleKind, listKind: `${healthRuleKind}List`, plural: 'healthrules', singular: 'healthrule', categories: ['tidemark'] },
      scope: 'Namespaced',
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: 'For', type: 'string', jsonPath: '.spec.kind' },
          { name: 'APIVersion', type: 'string', jsonPath: '.spec.apiVersion' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['apiVersion', 'kind', 'current'],
                properties: {
                  apiVersion: { type: 'string', pattern: apiVersionPattern, maxLength: 253, description: 'The apiVersion of the kind this rule judges; it applies to every version of its group.' },
                  kind: { type: 'string', pattern: kindPattern, maxLength: 63, description: 'The kind this rule judges, as the API spells it.' },
                  current: expression('is Ready'),
                  inProgress: expression('is still getting there (tried first)'),
                  failed: expression('failed (tried before current)'),
                },
                'x-kubernetes-validations': [
                  notBlank('current'), notBlank('inProgress'), notBlank('failed'),
                  { rule: '!has(self.failed) || self.failed != self.current', message: 'failed and current must differ: the same expression cannot say both', fieldPath: '.failed' },
                ],
              },
            },
          },
        },
      }],
    },
  };
}
