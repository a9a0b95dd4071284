import { crdHealth } from './crd-health';
import { daemonSetHealth } from './daemon-set-health';
import { deploymentHealth } from './deployment-health';
import type { HealthRule } from './health-rule';
import { hpaHealth } from './hpa-health';
import { jobHealth } from './job-health';
import { podHealth } from './pod-health';
import { pvcHealth } from './pvc-health';
import { replicaSetHealth } from './replica-set-health';
import { serviceHealth } from './service-health';
import { statefulSetHealth } from './stateful-set-health';

/** builtinHealthRules is the one list of kind-specific rules; a new rule is a file plus a line here. */
export const builtinHealthRules: readonly HealthRule[] = [
  deploymentHealth,
  statefulSetHealth,
  daemonSetHealth,
  replicaSetHealth,
  jobHealth,
  crdHealth,
  pvcHealth,
  podHealth,
  serviceHealth,
  hpaHealth,
];
