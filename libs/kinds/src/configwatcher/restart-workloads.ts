import type { ClusterActions, KubernetesManifest } from '../kind-plugin';
import { isPlainObject } from '../shared/plain-object';

/** restartedAtAnnotation is the pod-template annotation whose change makes a Deployment roll. */
export const restartedAtAnnotation = 'tidemark.dev/restartedAt';
/** restartHashAnnotation records which ConfigMap hash a restart was for, so a replay skips it. */
export const restartHashAnnotation = 'tidemark.dev/configMapHash';

/** RestartTarget is what a restart strategy needs to know. */
export interface RestartTarget {
  cluster: ClusterActions;
  namespace: string;
  matchLabels: Record<string, string>;
  configMapHash: string;
  /** The ConfigMap's resourceVersion at that hash. */
  configMapVersion?: string;
  now: Date;
}

/** deleteSelectedPods deletes the pods matching the selector (the original behaviour); returns how many. */
export async function deleteSelectedPods(target: RestartTarget): Promise<number> {
  const pods = await target.cluster.list('v1', 'Pod', target.namespace, target.matchLabels);
  for (const pod of pods) {
    await target.cluster.delete(pod);
  }
  return pods.length;
}

/**
 * rolloutRestartDeployments sets restartedAt on the pod template of every Deployment whose
 * template labels match the selector, as `kubectl rollout restart` does. A Deployment that
 * already carries this hash was restarted for this change by an interrupted earlier run.
 */
export async function rolloutRestartDeployments(target: RestartTarget): Promise<number> {
  const deployments = await target.cluster.list('apps/v1', 'Deployment', target.namespace);
  const selected = deployments.filter((deployment) => matchesSelector(templateMetadata(deployment).labels, target.matchLabels));
  const pending = selected.filter((deployment) => templateMetadata(deployment).annotations?.[restartHashAnnotation] !== target.configMapHash);
  for (const deployment of pending) {
    await target.cluster.applyPatch(restartPatch(deployment, target));
  }
  return pending.length;
}

function restartPatch(deployment: KubernetesManifest, target: RestartTarget): KubernetesManifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: deployment.metadata.name, namespace: target.namespace },
    spec: {
      template: {
        metadata: {
          annotations: { [restartedAtAnnotation]: target.now.toISOString(), [restartHashAnnotation]: target.configMapHash },
        },
      },
    },
  };
}

interface TemplateMetadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function templateMetadata(deployment: KubernetesManifest): TemplateMetadata {
  const spec = deployment.spec;
  const template = isPlainObject(spec) ? spec.template : undefined;
  const metadata = isPlainObject(template) ? template.metadata : undefined;
  return isPlainObject(metadata) ? (metadata as TemplateMetadata) : {};
}

/** matchesSelector: every selector label is present with the same value. */
export function matchesSelector(labels: Record<string, string> | undefined, matchLabels: Record<string, string>): boolean {
  return Object.entries(matchLabels).every(([key, value]) => labels?.[key] === value);
}
