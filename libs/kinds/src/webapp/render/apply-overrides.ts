import type { KubernetesManifest } from '../../kind-plugin';
import { deepMerge } from '../../shared/deep-merge';
import type { Components } from '../components';

/**
 * applyOverrides is render's last phase: each spec.override.<component> is deep-merged into
 * that component and wins over base and features. The object's identity (apiVersion, kind,
 * name, namespace) is kept, because the inventory and prune track objects by it. An
 * override for a component that is not rendered (its feature is off) is ignored, so a user
 * can switch a feature off without deleting its override.
 */
export function applyOverrides(components: Components, overrides: Record<string, unknown> | undefined): void {
  for (const [name, patch] of Object.entries(overrides ?? {})) {
    const component = components.get(name);
    if (component && patch !== undefined && patch !== null) {
      components.set(name, keepIdentity(component, deepMerge(component, patch) as KubernetesManifest));
    }
  }
}

function keepIdentity(original: KubernetesManifest, merged: KubernetesManifest): KubernetesManifest {
  return {
    ...merged,
    apiVersion: original.apiVersion,
    kind: original.kind,
    metadata: { ...merged.metadata, name: original.metadata.name, namespace: original.metadata.namespace },
  };
}
