// Owns: the kind plugins (ConfigWatcher, WebApp, and the plain-manifest health rules): their CRDs, spec
//   schemas, defaults, features, merge managers, render and act functions, and the registry the pipeline
//   looks them up in. A kind reaches the cluster only through the ClusterActions it is handed.
// Entry points: createDefaultRegistry, KindRegistry, KindPlugin, healthOf, crdFiles.
// Records: none.
// May import: @tidemark/contracts.

export type { ClusterActions, Health, KindPlugin } from './kind-plugin';

export { KindRegistry, type RegisteredKind } from './registry/kind-registry';
export { parseCustomResource, type CustomResource } from './registry/parse-custom-resource';
export { builtinKinds } from './registry/builtin-kinds';
export { createDefaultRegistry } from './registry/create-default-registry';
export { crdFiles } from './registry/crd-files';

export { healthOf } from './health/health-of';
export { builtinHealthRules } from './health/health-rules';
export type { HealthRule } from './health/health-rule';
export { compileHealthRules, HealthRuleError, type HealthExpressions } from './health/cel/cel-health-rule';
export { withHealthRules } from './health/cel/with-health-rules';
export { compileHealthRuleObjects, type HealthRuleObject, type SourceHealthRules } from './health/cel/health-rule-object';
export { withSourceHealthRules, type RunHealthRules } from './health/cel/run-health-rules';
export { healthRuleCrd, healthRuleCrdHeader } from './health/cel/health-rule-crd';

export { createWebAppPlugin, webAppPlugin } from './webapp/webapp-plugin';
export { v1alpha1FieldsAnnotation, v1beta1FieldsAnnotation } from './webapp/versions/convert-webapp';
export { webAppFeatures } from './webapp/features/index';
export type { WebAppFeature } from './webapp/features/webapp-feature';
