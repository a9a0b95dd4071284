import { isPlainObject, type PlainObject } from '../../shared/plain-object';
import type { ComponentDeclaration } from '../components';
import type { ValidationRule, WebAppFeature } from '../features/webapp-feature';
import { overrideSchema, sharedSpecProperties } from './webapp-spec-schema';

// Registry host (with an optional port), then path components without a tag or digest.
const repositoryPattern = '^([^/@:]+(:[0-9]+)?/)?[^@:]+$';
const tagPattern = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';
const digestPattern = '^[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$';

const imageSchema = {
  type: 'object',
  description: 'Container image of the app, in parts.',
  required: ['repository'],
  properties: {
    repository: { type: 'string', minLength: 1, pattern: repositoryPattern, description: 'Registry and path, e.g. registry.example.com:5000/shop/web; no tag or digest.' },
    tag: { type: 'string', pattern: tagPattern, description: 'Image tag, e.g. 1.4.2; the registry default (latest) when unset.' },
    digest: { type: 'string', pattern: digestPattern, description: 'Content digest (sha256:…); pins the exact image whatever the tag says.' },
    pullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'], description: 'When the kubelet pulls the image; the Kubernetes default when unset (Always for latest, else IfNotPresent).' },
  },
};

/**
 * webAppSpecSchemaV1beta1 builds v1beta1's spec: the image in parts, and spec.features as a
 * list of enabled features, each `{name, <name>: settings}` with the settings schema the feature
 * declares for v1alpha1 minus its `enabled` switch (being listed enables a feature).
 */
export function webAppSpecSchemaV1beta1(features: readonly WebAppFeature[], baseComponents: readonly ComponentDeclaration[]): PlainObject {
  const specValidations = features.flatMap((feature) => feature.specValidationsV1beta1 ?? []);
  return {
    type: 'object',
    description: 'What the app is and which features it uses; Tidemark renders a ServiceAccount, Deployment and Service from it, plus what each listed feature adds.',
    required: ['image'],
    properties: {
      image: imageSchema,
      ...sharedSpecProperties,
      features: featureListSchema(features),
      override: overrideSchema([...baseComponents, ...features.flatMap((feature) => feature.components)]),
    },
    ...(specValidations.length > 0 ? { 'x-kubernetes-validations': specValidations.map((rule) => ({ ...rule })) } : {}),
  };
}

function featureListSchema(features: readonly WebAppFeature[]): PlainObject {
  const ids = features.map((feature) => feature.id);
  return {
    type: 'array',
    description: `The features this app uses, each named once: ${ids.join(', ')}. A feature not listed is off.`,
    maxItems: ids.length,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', enum: ids, description: 'The feature; its settings go in the field of the same name.' },
        ...Object.fromEntries(features.map((feature) => [feature.id, settingsSchema(feature)])),
      },
      'x-kubernetes-validations': itemRules(features),
    },
  };
}

/** settingsSchema is a feature's v1alpha1 schema without `enabled`; its rules see enabled as true. */
function settingsSchema(feature: WebAppFeature): PlainObject {
  const { properties, 'x-kubernetes-validations': rules, ...rest } = feature.schema;
  const { enabled: _enabled, ...settings } = isPlainObject(properties) ? properties : {};
  const kept = (Array.isArray(rules) ? (rules as ValidationRule[]) : []).map((rule) => ({ ...rule, rule: withEnabledTrue(rule.rule) }));
  return {
    ...rest,
    description: `Settings of the ${feature.id} feature, used when the list names it. ${String(rest.description ?? '')}`.trim(),
    properties: settings,
    ...(kept.length > 0 ? { 'x-kubernetes-validations': kept } : {}),
  };
}

function withEnabledTrue(rule: string): string {
  return rule.replace(/^!self\.enabled \|\| /, '').replaceAll('self.enabled', 'true');
}

/**
 * itemRules: settings sit under the listed feature's own name, and a feature whose settings
 * have rules that depend on being enabled (ingress needs a host) must give its settings.
 */
function itemRules(features: readonly WebAppFeature[]): ValidationRule[] {
  const matching = features.map((feature) => `(!has(self.${celField(feature.id)}) || self.name == '${feature.id}')`).join(' && ');
  const rules: ValidationRule[] = [{ rule: matching, message: 'a feature\'s settings go in the field named like the feature (name: ingress, ingress: {…})' }];
  for (const feature of features) {
    if (JSON.stringify(feature.schema['x-kubernetes-validations'] ?? []).includes('self.enabled')) {
      rules.push({ rule: `self.name != '${feature.id}' || has(self.${celField(feature.id)})`, message: `the ${feature.id} feature needs its settings: name: ${feature.id}, ${feature.id}: {…}` });
    }
  }
  return rules;
}

/** celField escapes a property name for CEL the way Kubernetes does (quiet-logs is self.quiet__dash__logs). */
function celField(name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !name.includes('__')) return name;
  return name.replaceAll('__', '__underscores__').replaceAll('.', '__dot__').replaceAll('-', '__dash__').replaceAll('/', '__slash__');
}
