import { Type, type TObject } from '@sinclair/typebox';
import type { ComponentDeclaration } from '../components';
import type { ValidationRule, WebAppFeature } from '../features/webapp-feature';
import { overrideSchema } from './webapp-spec-schema';
import { webAppSpecV1beta1Of } from './webapp-spec-fields';

/**
 * webAppSpecSchemaV1beta1 builds v1beta1's spec: the image in parts, and spec.features as a
 * list of enabled features, each `{name, <name>: settings}` with the settings schema the feature
 * declares for v1alpha1 minus its `enabled` switch (being listed enables a feature).
 */
export function webAppSpecSchemaV1beta1(features: readonly WebAppFeature[], baseComponents: readonly ComponentDeclaration[]) {
  const rules = features.flatMap((feature) => feature.specValidationsV1beta1 ?? []);
  return webAppSpecV1beta1Of(featureListSchema(features), overrideSchema([...baseComponents, ...features.flatMap((feature) => feature.components)]), rules);
}

function featureListSchema(features: readonly WebAppFeature[]) {
  const ids = features.map((feature) => feature.id);
  const item = Type.Object({
    // An enum of the ids (a union of one literal would lose it); only the CRD reads this schema.
    name: Type.String({ enum: ids, description: 'The feature; its settings go in the field of the same name.' }),
    ...Object.fromEntries(features.map((feature) => [feature.id, Type.Optional(settingsSchema(feature))])),
  }, { 'x-kubernetes-validations': itemRules(features) });
  return Type.Array(item, {
    description: `The features this app uses, each named once: ${ids.join(', ')}. A feature not listed is off.`,
    maxItems: ids.length,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  });
}

/** settingsSchema is a feature's v1alpha1 schema without `enabled`; its rules see enabled as true. */
function settingsSchema(feature: WebAppFeature): TObject {
  const { enabled: _enabled, ...settings } = feature.schema.properties;
  const declared = (feature.schema['x-kubernetes-validations'] ?? []) as ValidationRule[];
  const kept = declared.map((rule) => ({ ...rule, rule: withEnabledTrue(rule.rule) }));
  return Type.Object(settings, {
    description: `Settings of the ${feature.id} feature, used when the list names it. ${String(feature.schema.description ?? '')}`.trim(),
    ...(kept.length > 0 ? { 'x-kubernetes-validations': kept } : {}),
  });
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
