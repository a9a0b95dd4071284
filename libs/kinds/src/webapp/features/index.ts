import { autoscalingFeature } from './autoscaling-feature';
import { configFeature } from './config-feature';
import { disruptionBudgetFeature } from './disruption-budget-feature';
import { ingressFeature } from './ingress-feature';
import { metricsFeature } from './metrics-feature';
import { networkPolicyFeature } from './network-policy-feature';
import type { WebAppFeature } from './webapp-feature';

/**
 * webAppFeatures is the single registration point of the built-in WebApp features. The order
 * is the order they run in (and of their components in the output). A new feature is a new
 * file plus one entry here; callers with their own features pass a list to createWebAppPlugin.
 */
export const webAppFeatures: readonly WebAppFeature[] = [
  configFeature,
  metricsFeature,
  autoscalingFeature,
  disruptionBudgetFeature,
  ingressFeature,
  networkPolicyFeature,
];
