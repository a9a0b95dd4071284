import type { KubernetesManifest } from '../../kind-plugin';
import { isPlainObject } from '../../shared/plain-object';
import { webAppGroup, webAppVersionV1alpha1, webAppStorageVersion, type FeatureSettings, type WebAppSpec } from '../webapp-types';
import { webAppV1alpha1ToV1beta1, webAppV1beta1ToV1alpha1 } from './convert-webapp';
import { joinImage } from './image-reference';
import type { WebAppSpecV1beta1 } from '../webapp-spec-type';

const v1alpha1 = `${webAppGroup}/${webAppVersionV1alpha1}`;
const v1beta1 = `${webAppGroup}/${webAppStorageVersion}`;

/** webAppApiVersions are the served versions, storage version first. */
export const webAppApiVersions = [v1beta1, v1alpha1] as const;

/**
 * convertWebApp returns a WebApp in another served version (pure); the conversion webhook and
 * the pipeline both call it. It throws on an apiVersion that is not served, naming both.
 */
export function convertWebApp(object: KubernetesManifest, toApiVersion: string): KubernetesManifest {
  for (const apiVersion of [object.apiVersion, toApiVersion]) {
    if (!(webAppApiVersions as readonly string[]).includes(apiVersion)) {
      throw new Error(`WebApp ${object.metadata.namespace ?? ''}/${object.metadata.name}: cannot convert ${object.apiVersion} to ${toApiVersion}; served versions are ${webAppApiVersions.join(', ')}`);
    }
  }
  if (object.apiVersion === toApiVersion) return object;
  return toApiVersion === v1beta1 ? webAppV1alpha1ToV1beta1(object, toApiVersion) : webAppV1beta1ToV1alpha1(object, toApiVersion);
}

/**
 * webAppSpecOf reads the spec render works on from a WebApp in either version, through the
 * storage version, so the same app written as v1alpha1 or v1beta1 renders the same objects.
 */
export function webAppSpecOf(object: KubernetesManifest): WebAppSpec {
  const stored = convertWebApp(object, v1beta1);
  const { image, features, ...rest } = (isPlainObject(stored.spec) ? stored.spec : {}) as Partial<WebAppSpecV1beta1>;
  const spec = { ...rest, image: image ? joinImage(image) : '' } as WebAppSpec;
  if (image?.pullPolicy) spec.imagePullPolicy = image.pullPolicy;
  if (features) {
    spec.features = Object.fromEntries(features.map((entry): [string, FeatureSettings] => [entry.name, { ...(isPlainObject(entry[entry.name]) ? (entry[entry.name] as FeatureSettings) : {}), enabled: true }]));
  }
  return spec;
}
