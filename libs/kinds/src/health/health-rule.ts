import type { Health, KubernetesManifest } from '../kind-plugin';

/**
 * HealthRule judges one group/kind. Rules match on the API group, not the version, because
 * the status shape a rule reads is stable across versions (autoscaling/v1 and v2 alike).
 */
export interface HealthRule {
  /** API group ('' for the core group). */
  group: string;
  kind: string;
  /** Where a user declared it ("tidemark.yaml objectHealth.rules[0]", "rules/db.yaml: HealthRule ops/db"); absent for a built-in rule. */
  declaredIn?: string;
  evaluate(live: KubernetesManifest): Health;
}
