import type { KubernetesManifest } from '../../kind-plugin';
import { isPlainObject, type PlainObject } from '../../shared/plain-object';
import type { FeatureSettings, WebAppSpec } from '../webapp-types';
import { joinImage, splitImage } from './image-reference';
import type { FeatureEntryV1beta1, ImagePullPolicy, WebAppSpecV1beta1 } from '../webapp-spec-type';

/**
 * Annotation on a v1beta1 WebApp holding the v1alpha1 features that were present but not
 * enabled (v1beta1 lists only enabled features), as JSON keyed by feature id. Converting back
 * to v1alpha1 restores them and removes the annotation.
 */
export const v1alpha1FieldsAnnotation = 'conversion.tidemark.dev/v1alpha1-fields';

/**
 * Annotation on a v1alpha1 WebApp holding what only v1beta1 can say (the image pull policy,
 * the order of the feature list, features listed with empty settings), as JSON. Converting
 * back to v1beta1 restores them and removes the annotation.
 */
export const v1beta1FieldsAnnotation = 'conversion.tidemark.dev/v1beta1-fields';

/** V1alpha1Fields is the JSON of v1alpha1FieldsAnnotation. */
type V1alpha1Fields = { disabledFeatures?: Record<string, FeatureSettings> };

/** V1beta1Fields is the JSON of v1beta1FieldsAnnotation. */
type V1beta1Fields = { imagePullPolicy?: ImagePullPolicy; featureOrder?: string[]; emptySettings?: string[] };

/**
 * webAppV1alpha1ToV1beta1 converts a whole WebApp object (pure): `spec.image` splits into
 * repository, tag and digest, and `spec.features` becomes the list of enabled features.
 * Converting the result back with webAppV1beta1ToV1alpha1 gives the input again.
 */
export function webAppV1alpha1ToV1beta1(object: KubernetesManifest, apiVersion: string): KubernetesManifest {
  const { annotations, taken } = takeAnnotation(object, v1beta1FieldsAnnotation);
  const extra = parseFields<V1beta1Fields>(taken, v1beta1FieldsAnnotation, object);
  const spec = isPlainObject(object.spec) ? (object.spec as WebAppSpec) : undefined;
  const disabled: Record<string, FeatureSettings> = {};
  const converted = spec ? specToV1beta1(spec, extra, disabled) : object.spec;
  const kept = Object.keys(disabled).length > 0 ? { ...annotations, [v1alpha1FieldsAnnotation]: JSON.stringify({ disabledFeatures: disabled } satisfies V1alpha1Fields) } : annotations;
  return withSpec(object, apiVersion, kept, converted);
}

/** webAppV1beta1ToV1alpha1 converts a whole WebApp object back (pure); see webAppV1alpha1ToV1beta1. */
export function webAppV1beta1ToV1alpha1(object: KubernetesManifest, apiVersion: string): KubernetesManifest {
  const { annotations, taken } = takeAnnotation(object, v1alpha1FieldsAnnotation);
  const extra = parseFields<V1alpha1Fields>(taken, v1alpha1FieldsAnnotation, object);
  const spec = isPlainObject(object.spec) ? (object.spec as WebAppSpecV1beta1) : undefined;
  const fields: V1beta1Fields = {};
  const converted = spec ? specToV1alpha1(spec, extra, fields) : object.spec;
  const kept = Object.keys(fields).length > 0 ? { ...annotations, [v1beta1FieldsAnnotation]: JSON.stringify(fields) } : annotations;
  return withSpec(object, apiVersion, kept, converted);
}

function specToV1beta1(spec: WebAppSpec, extra: V1beta1Fields, disabled: Record<string, FeatureSettings>): WebAppSpecV1beta1 {
  const { image, features, ...rest } = spec;
  const reference = typeof image === 'string' ? splitImage(image) : { repository: '' };
  const converted: WebAppSpecV1beta1 = { ...rest, image: { ...reference, ...(extra.imagePullPolicy ? { pullPolicy: extra.imagePullPolicy } : {}) } };
  if (typeof image !== 'string') delete (converted as Partial<WebAppSpecV1beta1>).image;
  if (features === undefined) return converted;
  const entries: FeatureEntryV1beta1[] = [];
  for (const [name, settings] of Object.entries(features)) {
    if (!settings || settings.enabled !== true) {
      disabled[name] = settings ?? {};
      continue;
    }
    const { enabled: _enabled, ...values } = settings;
    const keepEmpty = extra.emptySettings?.includes(name) === true;
    entries.push(Object.keys(values).length > 0 || keepEmpty ? { name, [name]: values } : { name });
  }
  converted.features = orderFeatures(entries, extra.featureOrder);
  return converted;
}

function specToV1alpha1(spec: WebAppSpecV1beta1, extra: V1alpha1Fields, fields: V1beta1Fields): WebAppSpec {
  const { image, features, ...rest } = spec;
  const converted = { ...rest } as WebAppSpec;
  if (isPlainObject(image)) {
    converted.image = joinImage(image);
    if (image.pullPolicy) fields.imagePullPolicy = image.pullPolicy;
  }
  if (features === undefined && extra.disabledFeatures === undefined) return converted;
  const map: Record<string, FeatureSettings> = { ...extra.disabledFeatures };
  for (const entry of features ?? []) {
    const settings = isPlainObject(entry[entry.name]) ? (entry[entry.name] as PlainObject) : undefined;
    if (settings && Object.keys(settings).length === 0) (fields.emptySettings ??= []).push(entry.name);
    map[entry.name] = { enabled: true, ...settings };
  }
  const names = (features ?? []).map((entry) => entry.name);
  if (names.join('\u0000') !== [...names].sort().join('\u0000')) fields.featureOrder = names;
  converted.features = sortedKeys(map);
  return converted;
}

/** orderFeatures puts the list in the order v1beta1 had (from the annotation), else by name. */
function orderFeatures(entries: FeatureEntryV1beta1[], order: string[] | undefined): FeatureEntryV1beta1[] {
  const rank = (name: string) => {
    const index = order?.indexOf(name) ?? -1;
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  return [...entries].sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// The API server stores maps with sorted keys; building them sorted keeps round trips equal.
function sortedKeys<Value>(map: Record<string, Value>): Record<string, Value> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function takeAnnotation(object: KubernetesManifest, name: string): { annotations: Record<string, string> | undefined; taken: string | undefined } {
  const all = object.metadata.annotations;
  if (!all || !(name in all)) return { annotations: all, taken: undefined };
  const { [name]: taken, ...annotations } = all;
  return { annotations, taken };
}

function parseFields<Fields extends object>(text: string | undefined, annotation: string, object: KubernetesManifest): Fields {
  if (text === undefined) return {} as Fields;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed as Fields;
  } catch {
    // Reported below with the object's name.
  }
  throw new Error(`WebApp ${object.metadata.namespace ?? ''}/${object.metadata.name}: annotation ${annotation} is not a JSON object; remove it or restore what Tidemark wrote`);
}

function withSpec(object: KubernetesManifest, apiVersion: string, annotations: Record<string, string> | undefined, spec: unknown): KubernetesManifest {
  const { annotations: _old, ...metadata } = object.metadata;
  const hasAnnotations = annotations !== undefined && Object.keys(annotations).length > 0;
  const converted: KubernetesManifest = { ...object, apiVersion, metadata: hasAnnotations ? { ...metadata, annotations } : metadata };
  if (spec !== undefined) converted.spec = spec;
  return converted;
}
