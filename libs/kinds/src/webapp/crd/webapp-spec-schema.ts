import type { PlainObject } from '../../shared/plain-object';
import type { ComponentDeclaration } from '../components';
import type { WebAppFeature } from '../features/webapp-feature';
import { defaultPort } from '../webapp-types';

const quantity = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

/** sharedSpecProperties are the spec fields v1alpha1 and v1beta1 have in common. */
export const sharedSpecProperties = {
  replicas: { type: 'integer', minimum: 0, description: 'Number of pods; 1 when unset. Must not be set with features.autoscaling.' },
  port: { type: 'integer', minimum: 1, maximum: 65535, default: defaultPort, description: 'Port the app listens on, published as the `http` port.' },
  env: {
    type: 'array',
    description: 'Environment variables of the app container.',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, description: 'Name of the variable.' },
        value: { type: 'string', description: 'Its value; do not put secrets here, use valueFrom.secretKeyRef.' },
        valueFrom: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'A source for the value, as in a container spec (secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef).' },
      },
    },
  },
  resources: {
    type: 'object',
    description: 'Compute requests and limits of the app container.',
    properties: {
      limits: { type: 'object', additionalProperties: quantity, description: 'Most of each resource (cpu, memory, …) the container may use.' },
      requests: { type: 'object', additionalProperties: quantity, description: 'Resources reserved for the container; autoscaling measures CPU against this.' },
    },
  },
  dependsOn: {
    type: 'array',
    maxItems: 64,
    'x-kubernetes-list-type': 'set',
    description: 'Objects this app waits for before it is applied, each Ready at its current revision: [source:]group/version/Kind/namespace/name (e.g. apps/v1/Deployment/db/postgres, tidemark.dev/v1beta1/WebApp/shop/api, infra:v1/ConfigMap/shop/settings), or group/version/Kind/name for a cluster-scoped object. Git objects of any source, or live objects; the same as the tidemark.dev/depends-on annotation.',
    items: { type: 'string', minLength: 1, maxLength: 512, description: 'One object: [source:]group/version/Kind/namespace/name.' },
  },
};

/**
 * webAppSpecSchemaV1alpha1 assembles spec's schema from the base fields, each feature's own schema
 * under spec.features, and one free-form override per component (base and feature
 * components alike), so adding a feature extends the CRD without editing it.
 */
export function webAppSpecSchemaV1alpha1(features: readonly WebAppFeature[], baseComponents: readonly ComponentDeclaration[]): PlainObject {
  const specValidations = features.flatMap((feature) => feature.specValidations ?? []);
  return {
    type: 'object',
    description: 'What the app is and which features it uses; Tidemark renders a ServiceAccount, Deployment and Service from it, plus what each feature adds.',
    required: ['image'],
    properties: {
      image: { type: 'string', minLength: 1, description: 'Container image of the app, e.g. registry.example.com/shop/web:1.2.' },
      ...sharedSpecProperties,
      features: {
        type: 'object',
        description: 'Optional capabilities; each is off unless enabled is true.',
        properties: Object.fromEntries(features.map((feature) => [feature.id, feature.schema])),
      },
      override: overrideSchema([...baseComponents, ...features.flatMap((feature) => feature.components)]),
    },
    ...(specValidations.length > 0 ? { 'x-kubernetes-validations': specValidations.map((rule) => ({ ...rule })) } : {}),
  };
}

/** overrideSchema is spec.override: one free-form partial object per component. */
export function overrideSchema(components: readonly ComponentDeclaration[]): PlainObject {
  const entries = components.map((component) => [
    component.name,
    {
      type: 'object',
      description: `Partial ${component.kind}, deep-merged last over what Tidemark renders (null deletes a field; lists of named items merge by name).`,
      'x-kubernetes-preserve-unknown-fields': true,
    },
  ]);
  return {
    type: 'object',
    description: 'Per-component changes applied after the base and the features; they win over both.',
    properties: Object.fromEntries(entries),
  };
}
