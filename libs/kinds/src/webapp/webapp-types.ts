import type { PlainObject } from '../shared/plain-object';

/** EnvVar is a container environment variable. */
export type EnvVar = { name: string; value?: string; valueFrom?: PlainObject };

/** FeatureSettings is what every entry under spec.features has; each feature adds its own fields. */
export type FeatureSettings = { enabled?: boolean } & PlainObject;

/**
 * WebAppSpec is the spec render reads: v1alpha1's shape plus what only v1beta1 can say.
 * Objects of either served version become one with `webAppSpecOf`. `features` is keyed by feature id and each feature
 * types its own settings (see `settingsOf`), so a new feature needs no change here.
 */
export type WebAppSpec = {
  image: string;
  /** Omitted when autoscaling is on (the CRD rejects it then); defaults to 1 otherwise. */
  replicas?: number;
  /** The container port the app listens on, named `http`. Defaults to 8080. */
  port?: number;
  env?: EnvVar[];
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  features?: Record<string, FeatureSettings | undefined>;
  /** The container's imagePullPolicy; only v1beta1 can set it (spec.image.pullPolicy). */
  imagePullPolicy?: string;
  /** Per component (deployment, service, hpa, …): a partial object deep-merged last. */
  override?: Record<string, PlainObject | undefined>;
  /** Objects applied before this one ([source:]group/version/Kind/namespace/name); libs/ordering reads them. */
  dependsOn?: string[];
};

export const webAppGroup = 'tidemark.dev';
/** webAppVersion is the storage version, the one the plugin is registered under first. */
export const webAppVersion = 'v1beta1';
export const webAppStorageVersion = webAppVersion;
/** webAppVersionV1alpha1 is the first version, still served, deprecated. */
export const webAppVersionV1alpha1 = 'v1alpha1';
export const webAppKind = 'WebApp';
export const webAppPlural = 'webapps';

/** defaultPort is the container port when spec.port is not set. */
export const defaultPort = 8080;

/** mainContainerName is the app's container; overrides and features address it by this name. */
export const mainContainerName = 'app';
