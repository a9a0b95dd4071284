import type { KubernetesManifest } from '../kind-plugin';
import { isPlainObject } from '../shared/plain-object';

/** WebAppStatus is the part of a WebApp's status the kind itself fills; the pipeline writes the rest. */
export type WebAppStatus = { readyReplicas: number };

/**
 * observeWebAppStatus reads readyReplicas from the live Deployment, so `kubectl get webapp`
 * and the dashboard show how many pods serve; 0 until the Deployment reports any.
 */
export function observeWebAppStatus(owned: readonly KubernetesManifest[]): Partial<WebAppStatus> {
  const deployment = owned.find((object) => object.apiVersion === 'apps/v1' && object.kind === 'Deployment');
  const status = deployment?.status;
  const readyReplicas = isPlainObject(status) && typeof status.readyReplicas === 'number' ? status.readyReplicas : 0;
  return { readyReplicas };
}
