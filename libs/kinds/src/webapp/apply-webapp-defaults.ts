import type { WebAppFeature } from './features/webapp-feature';
import { isFeatureEnabled } from './features/webapp-feature';
import { defaultPort, type WebAppSpec } from './webapp-types';

/**
 * applyWebAppDefaults fills what the CRD's defaults would, so render gives the same result
 * for a CR that never went through the API server (unit tests, the dry-run-less path).
 * replicas is defaulted only without autoscaling, where the HPA owns it.
 */
export function applyWebAppDefaults(spec: WebAppSpec): WebAppSpec {
  const autoscaling = isFeatureEnabled(spec, 'autoscaling');
  return {
    ...spec,
    port: spec.port ?? defaultPort,
    ...(autoscaling || spec.replicas !== undefined ? {} : { replicas: 1 }),
  };
}

/** enabledWebAppFeatures lists the ids of the features a spec turns on, in feature order. */
export function enabledWebAppFeatures(spec: WebAppSpec, features: readonly WebAppFeature[]): string[] {
  return features.filter((feature) => isFeatureEnabled(spec, feature.id)).map((feature) => feature.id);
}
