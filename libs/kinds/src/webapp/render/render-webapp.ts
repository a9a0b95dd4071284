import { Reason, TerminalError } from '@tidemark/contracts';
import type { KubernetesManifest, RenderContext } from '../../kind-plugin';
import { skeletonOf, type Components } from '../components';
import type { WebAppFeature } from '../features/webapp-feature';
import { createMergeManagers } from '../merge/create-merge-managers';
import { OwnershipLedger } from '../merge/ownership-ledger';
import { identityOf, type WebAppIdentity } from '../webapp-identity';
import type { WebAppSpec } from '../webapp-types';
import { applyOverrides } from './apply-overrides';
import { renderBaseComponents } from './base-components';

/**
 * renderWebApp turns a WebApp into the objects it owns, in three phases: base components,
 * then each enabled feature (in the order of `features`) through the merge managers, then
 * spec.override. The output order is base components, then each feature's components in
 * declaration order, so the same WebApp always renders the same list. Pure; throws
 * TerminalError(FeatureConflict) when two features disagree.
 */
export function renderWebApp(context: RenderContext<WebAppSpec>, features: readonly WebAppFeature[]): KubernetesManifest[] {
  const spec = context.object.spec;
  const identity = identityOf(context.object);
  const enabled = features.filter((feature) => context.features.includes(feature.id));
  const components = renderBaseComponents(spec, identity);
  addRequiredComponents(components, enabled, spec, identity);
  const ledger = new OwnershipLedger();
  for (const feature of enabled) {
    feature.manage({ spec, identity, components }, createMergeManagers(components, ledger, feature.id));
  }
  applyOverrides(components, spec.override);
  return [...components.values()];
}

function addRequiredComponents(components: Components, features: readonly WebAppFeature[], spec: WebAppSpec, identity: WebAppIdentity): void {
  for (const feature of features) {
    for (const name of feature.configure(spec)) {
      const declaration = feature.components.find((candidate) => candidate.name === name);
      if (!declaration) {
        throw new TerminalError('UnknownComponent', `Feature "${feature.id}" requires component "${name}" but does not declare it; add it to the feature's components.`);
      }
      const existing = components.get(name);
      if (existing && existing.kind !== declaration.kind) {
        throw new TerminalError(Reason.FeatureConflict, `Feature "${feature.id}" declares component "${name}" as a ${declaration.kind}, but it is already a ${existing.kind}; rename one of the components.`);
      }
      if (!existing) {
        components.set(name, skeletonOf(declaration, identity));
      }
    }
  }
}
