import { Type } from '@sinclair/typebox';
import type { ComponentDeclaration } from '../components';
import type { WebAppFeature } from '../features/webapp-feature';
import { webAppSpecV1alpha1Of } from './webapp-spec-fields';

/**
 * webAppSpecSchemaV1alpha1 assembles spec's schema from the base fields, each feature's own schema
 * under spec.features, and one free-form override per component (base and feature
 * components alike), so adding a feature extends the CRD without editing it.
 */
export function webAppSpecSchemaV1alpha1(features: readonly WebAppFeature[], baseComponents: readonly ComponentDeclaration[]) {
  const featureSchemas = Type.Object(Object.fromEntries(features.map((feature) => [feature.id, Type.Optional(feature.schema)])), {
    description: 'Optional capabilities; each is off unless enabled is true.',
  });
  const rules = features.flatMap((feature) => feature.specValidations ?? []);
  return webAppSpecV1alpha1Of(featureSchemas, overrideSchema([...baseComponents, ...features.flatMap((feature) => feature.components)]), rules);
}

/** overrideSchema is spec.override: one free-form partial object per component. */
export function overrideSchema(components: readonly ComponentDeclaration[]) {
  const entries = components.map((component) => [
    component.name,
    Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
      description: `Partial ${component.kind}, deep-merged last over what Tidemark renders (null deletes a field; lists of named items merge by name).`,
      'x-kubernetes-preserve-unknown-fields': true,
    })),
  ]);
  return Type.Object(Object.fromEntries(entries), { description: 'Per-component changes applied after the base and the features; they win over both.' });
}
