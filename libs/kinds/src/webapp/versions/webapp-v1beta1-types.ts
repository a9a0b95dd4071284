import type { PlainObject } from '../../shared/plain-object';
import type { EnvVar } from '../webapp-types';
import type { ImageReference } from './image-reference';

/** ImagePullPolicy is a container's imagePullPolicy; v1beta1 makes it a field of the image. */
export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/**
 * FeatureEntryV1beta1 is one enabled feature of a v1beta1 WebApp: its name, and its settings
 * under a member of the same name (`{name: ingress, ingress: {host: …}}`), so each feature keeps
 * a typed schema with its own defaults. Being listed is what enables it.
 */
export type FeatureEntryV1beta1 = { name: string } & { [settings: string]: PlainObject | string | undefined };

/** WebAppSpecV1beta1 is the spec of a tidemark.dev/v1beta1 WebApp. */
export type WebAppSpecV1beta1 = {
  image: ImageReference & { pullPolicy?: ImagePullPolicy };
  replicas?: number;
  port?: number;
  env?: EnvVar[];
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  features?: FeatureEntryV1beta1[];
  override?: Record<string, PlainObject | undefined>;
  dependsOn?: string[];
};
