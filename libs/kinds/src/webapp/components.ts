import type { KubernetesManifest } from '../kind-plugin';
import type { WebAppIdentity } from './webapp-identity';

/**
 * ComponentDeclaration names a component a WebApp may own: the key used by
 * `spec.override.<name>` and by merge managers, and the type of object it is.
 */
export interface ComponentDeclaration {
  name: string;
  apiVersion: string;
  kind: string;
}

/** Components holds the rendered objects by component name, in the order they were added. */
export type Components = Map<string, KubernetesManifest>;

/** skeletonOf is a component's empty object: identity and labels, ready for managers to fill. */
export function skeletonOf(declaration: ComponentDeclaration, identity: WebAppIdentity): KubernetesManifest {
  return {
    apiVersion: declaration.apiVersion,
    kind: declaration.kind,
    metadata: { name: identity.name, namespace: identity.namespace, labels: { ...identity.labels } },
  };
}
