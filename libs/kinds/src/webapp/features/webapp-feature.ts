import type { TObject } from '@sinclair/typebox';
import type { CelRule } from '@tidemark/contracts';
import type { ComponentDeclaration, Components } from '../components';
import type { MergeManagers } from '../merge/merge-managers';
import type { WebAppIdentity } from '../webapp-identity';
import type { WebAppSpec } from '../webapp-types';

/** FeatureContext is what a feature reads while it manages components; it writes only through managers. */
export interface FeatureContext {
  spec: WebAppSpec;
  identity: WebAppIdentity;
  /** The rendered objects so far, to read (e.g. the app's port); never to write. */
  components: Readonly<Components>;
}

/** ValidationRule is a CEL rule for the CRD's x-kubernetes-validations. */
export type ValidationRule = CelRule;

/**
 * WebAppFeature is one optional capability of a WebApp, as in the Datadog Operator: it owns
 * the schema of `spec.features.<id>`, declares the components it may add, says which it
 * needs for a spec (`configure`) and adds its parts through the merge managers (`manage`).
 * The CRD is generated from the features, so a new feature is one new file plus one entry
 * in the feature list, and changes no other code.
 */
export interface WebAppFeature {
  /** The key under spec.features, and the owner named in conflict messages. */
  id: string;
  /** TypeBox schema of spec.features.<id> (every field optional), with its CEL rules; must have an `enabled` boolean. */
  schema: TObject;
  /** CEL rules that need the whole spec (e.g. spec.replicas against autoscaling), on v1alpha1's shape. */
  specValidations?: readonly ValidationRule[];
  /** The same rules on v1beta1's shape, where spec.features is a list of {name, <id>: settings}. */
  specValidationsV1beta1?: readonly ValidationRule[];
  /** Every component this feature may add; they also become spec.override.<name>. */
  components: readonly ComponentDeclaration[];
  /** configure returns the names of the components this spec needs (from `components`). */
  configure(spec: WebAppSpec): string[];
  /** manage adds this feature's parts to the components, only through the managers. */
  manage(context: FeatureContext, managers: MergeManagers): void;
}

/** isFeatureEnabled: a feature is on when spec.features.<id>.enabled is true. */
export function isFeatureEnabled(spec: WebAppSpec, id: string): boolean {
  return spec.features?.[id]?.enabled === true;
}

/**
 * settingsOf returns a feature's settings typed as the feature declares them. The cast is
 * safe because the API server validated them against the schema the same feature provides.
 */
export function settingsOf<Settings>(spec: WebAppSpec, id: string): Partial<Settings> {
  return (spec.features?.[id] ?? {}) as Partial<Settings>;
}
