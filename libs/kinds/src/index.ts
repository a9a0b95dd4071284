// Owns: the kind plugins (ConfigWatcher, WebApp, and the plain-manifest health rules): their CRDs, spec
//   schemas, defaults, features, merge managers, render and act functions, and the registry the pipeline
//   looks them up in. A kind reaches the cluster only through the ClusterActions it is handed.
// Entry points: createDefaultRegistry, KindRegistry, KindPlugin, healthOf, crdFiles.
// Records: none.
// May import: @tidemark/contracts.

export type { ActionContext, ActionResult, ClusterActions, Health, KindPlugin, KubernetesManifest, RenderContext } from './kind-plugin';

export { KindRegistry, type RegisteredKind } from './registry/kind-registry';
export { parseCustomResource, type CustomResource } from './registry/parse-custom-resource';
export { builtinKinds } from './registry/builtin-kinds';
export { createDefaultRegistry } from './registry/create-default-registry';
export { crdFiles, type CrdFile } from './registry/crd-files';

export { healthOf } from './health/health-of';
export { builtinHealthRules } from './health/health-rules';
export { genericHealth } from './health/generic-health';
export type { HealthRule } from './health/health-rule';
export { compileHealthRule, compileHealthRules, HealthRuleError, type HealthExpressions } from './health/cel/cel-health-rule';
export { withHealthRules } from './health/cel/with-health-rules';
export { compileHealthRuleObjects, type HealthRuleObject, type RefusedHealthRule, type SourceHealthRules } from './health/cel/health-rule-object';
export { withSourceHealthRules, type RunHealthRules } from './health/cel/run-health-rules';
export { healthRuleCrd, healthRuleCrdHeader } from './health/cel/health-rule-crd';

export { configWatcherPlugin } from './configwatcher/configwatcher-plugin';
export { configWatcherCrd } from './configwatcher/configwatcher-crd';
export { actOnConfigWatcher } from './configwatcher/configwatcher-act';
export { configMapHash } from './configwatcher/configmap-hash';
export { ConfigWatcherReason, configMapWatchedCondition } from './configwatcher/configwatcher-conditions';
export { restartedAtAnnotation, restartHashAnnotation } from './configwatcher/restart-workloads';
export type { ConfigWatcherSpec, ConfigWatcherStatus, RestartStrategy } from './configwatcher/configwatcher-types';

export { createWebAppPlugin, webAppPlugin } from './webapp/webapp-plugin';
export { webAppCrd, defaultConversionService, v1alpha1DeprecationWarning } from './webapp/crd/webapp-crd';
export { convertWebApp, webAppSpecOf, webAppApiVersions } from './webapp/versions/convert-webapp-version';
export { v1alpha1FieldsAnnotation, v1beta1FieldsAnnotation } from './webapp/versions/convert-webapp';
export { splitImage, joinImage, type ImageReference } from './webapp/versions/image-reference';
export type { WebAppSpecV1beta1, FeatureEntryV1beta1, ImagePullPolicy } from './webapp/versions/webapp-v1beta1-types';
export { renderWebApp } from './webapp/render/render-webapp';
export { observeWebAppStatus, type WebAppStatus } from './webapp/observe-webapp-status';
export { applyWebAppDefaults, enabledWebAppFeatures } from './webapp/apply-webapp-defaults';
export { webAppFeatures } from './webapp/features/index';
export { isFeatureEnabled, settingsOf, type FeatureContext, type ValidationRule, type WebAppFeature } from './webapp/features/webapp-feature';
export { configHashAnnotation } from './webapp/features/config-feature';
export type { ComponentDeclaration, Components } from './webapp/components';
export type { MergeManagers, MetadataTarget } from './webapp/merge/merge-managers';
export type { FieldPath } from './webapp/merge/object-paths';
export type { Container, ContainerPort, EnvFromSource, EnvVar, ServicePort, Volume, VolumeMount } from './webapp/merge/pod-types';
export type { WebAppIdentity } from './webapp/webapp-identity';
export { mainContainerName, type FeatureSettings, type WebAppSpec } from './webapp/webapp-types';

export { deepMerge } from './shared/deep-merge';
