export type { EnvVar, FeatureSettings, WebAppSpec } from './webapp-spec-type';
export { defaultPort } from './crd/webapp-spec-fields';

export const webAppGroup = 'tidemark.dev';
/** webAppVersion is the storage version, the one the plugin is registered under first. */
export const webAppVersion = 'v1beta1';
export const webAppStorageVersion = webAppVersion;
/** webAppVersionV1alpha1 is the first version, still served, deprecated. */
export const webAppVersionV1alpha1 = 'v1alpha1';
export const webAppKind = 'WebApp';
export const webAppPlural = 'webapps';

/** mainContainerName is the app's container; overrides and features address it by this name. */
export const mainContainerName = 'app';
