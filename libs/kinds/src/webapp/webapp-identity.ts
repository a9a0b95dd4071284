import type { KubernetesManifest } from '../kind-plugin';
import type { WebAppSpec } from './webapp-types';

/** WebAppIdentity is what names and labels every object a WebApp owns. */
export interface WebAppIdentity {
  name: string;
  namespace: string;
  /** Labels on every owned object. */
  labels: Record<string, string>;
  /** The subset that selects the WebApp's pods; stable, since a Deployment selector is immutable. */
  selectorLabels: Record<string, string>;
}

/** identityOf derives the names and the standard app.kubernetes.io labels from a WebApp. */
export function identityOf(webApp: KubernetesManifest & { spec: WebAppSpec }): WebAppIdentity {
  const name = webApp.metadata.name;
  const selectorLabels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': name };
  return {
    name,
    namespace: webApp.metadata.namespace ?? 'default',
    labels: { ...selectorLabels, 'app.kubernetes.io/managed-by': 'tidemark' },
    selectorLabels,
  };
}
