import { Type, type TSchema } from '@sinclair/typebox';
import type { CelRule } from '@tidemark/contracts';
import { freeFormObject, intOrString } from '../../shared/schema-parts';

/** defaultPort is the container port when spec.port is not set. */
export const defaultPort = 8080;

// Registry host (with an optional port), then path components without a tag or digest.
const repositoryPattern = '^([^/@:]+(:[0-9]+)?/)?[^@:]+$';
const tagPattern = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';
const digestPattern = '^[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$';

/** envVarSchema is one environment variable of the app container. */
export const envVarSchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'Name of the variable.' }),
  value: Type.Optional(Type.String({ description: 'Its value; do not put secrets here, use valueFrom.secretKeyRef.' })),
  valueFrom: Type.Optional(freeFormObject('A source for the value, as in a container spec (secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef).')),
});

/** sharedSpecProperties are the spec fields v1alpha1 and v1beta1 have in common. */
export const sharedSpecProperties = {
  replicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Number of pods; 1 when unset. Must not be set with features.autoscaling.' })),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: defaultPort, description: 'Port the app listens on, published as the `http` port.' })),
  env: Type.Optional(Type.Array(envVarSchema, {
    description: 'Environment variables of the app container.',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  })),
  resources: Type.Optional(Type.Object({
    limits: Type.Optional(Type.Record(Type.String(), intOrString(), { description: 'Most of each resource (cpu, memory, …) the container may use.' })),
    requests: Type.Optional(Type.Record(Type.String(), intOrString(), { description: 'Resources reserved for the container; autoscaling measures CPU against this.' })),
  }, { description: 'Compute requests and limits of the app container.' })),
  dependsOn: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512, description: 'One object: [source:]group/version/Kind/namespace/name.' }), {
    maxItems: 64,
    'x-kubernetes-list-type': 'set',
    description: 'Objects this app waits for before it is applied, each Ready at its current revision: [source:]group/version/Kind/namespace/name (e.g. apps/v1/Deployment/db/postgres, tidemark.dev/v1beta1/WebApp/shop/api, infra:v1/ConfigMap/shop/settings), or group/version/Kind/name for a cluster-scoped object. Git objects of any source, or live objects; the same as the tidemark.dev/depends-on annotation.',
  })),
};

const imageV1beta1 = Type.Object({
  repository: Type.String({ minLength: 1, pattern: repositoryPattern, description: 'Registry and path, e.g. registry.example.com:5000/shop/web; no tag or digest.' }),
  tag: Type.Optional(Type.String({ pattern: tagPattern, description: 'Image tag, e.g. 1.4.2; the registry default (latest) when unset.' })),
  digest: Type.Optional(Type.String({ pattern: digestPattern, description: 'Content digest (sha256:…); pins the exact image whatever the tag says.' })),
  pullPolicy: Type.Optional(Type.Union([Type.Literal('Always'), Type.Literal('IfNotPresent'), Type.Literal('Never')], { description: 'When the kubelet pulls the image; the Kubernetes default when unset (Always for latest, else IfNotPresent).' })),
}, { description: 'Container image of the app, in parts.' });

const celRules = (rules: readonly CelRule[]) => (rules.length > 0 ? { 'x-kubernetes-validations': rules.map((rule) => ({ ...rule })) } : {});

/**
 * webAppSpecV1alpha1Of is v1alpha1's spec around a features part and an override part: the CRD
 * passes one property per feature and component, the registry's check open records.
 */
export function webAppSpecV1alpha1Of<Features extends TSchema, Override extends TSchema>(features: Features, override: Override, rules: readonly CelRule[] = []) {
  return Type.Object({
    image: Type.String({ minLength: 1, description: 'Container image of the app, e.g. registry.example.com/shop/web:1.2.' }),
    ...sharedSpecProperties,
    features: Type.Optional(features),
    override: Type.Optional(override),
  }, {
    description: 'What the app is and which features it uses; Tidemark renders a ServiceAccount, Deployment and Service from it, plus what each feature adds.',
    ...celRules(rules),
  });
}

/** webAppSpecV1beta1Of is v1beta1's spec: the image in parts and spec.features a list (the features part). */
export function webAppSpecV1beta1Of<Features extends TSchema, Override extends TSchema>(features: Features, override: Override, rules: readonly CelRule[] = []) {
  return Type.Object({
    image: imageV1beta1,
    ...sharedSpecProperties,
    features: Type.Optional(features),
    override: Type.Optional(override),
  }, {
    description: 'What the app is and which features it uses; Tidemark renders a ServiceAccount, Deployment and Service from it, plus what each listed feature adds.',
    ...celRules(rules),
  });
}
