import type { Health, KubernetesManifest } from '../kind-plugin';
import type { HealthRule } from './health-rule';
import { describe, generationLag, numberAt, specOf, statusOf } from './status-fields';

/** statefulSetHealth: Ready when all replicas are ready on the update revision. */
export const statefulSetHealth: HealthRule = {
  group: 'apps',
  kind: 'StatefulSet',
  evaluate: (live) => generationLag(live) ?? rollout(live),
};

function rollout(live: KubernetesManifest): Health {
  const status = statusOf(live);
  const desired = numberAt(specOf(live), 'replicas', 1);
  const ready = numberAt(status, 'readyReplicas');
  const name = describe(live);
  if (ready < desired) {
    return { status: 'Progressing', message: `${name} has ${ready} of ${desired} replicas ready; check the pods and their volume claims.` };
  }
  // OnDelete never moves pods to the new revision by itself, so only RollingUpdate waits for it.
  const strategy = specOf(live).updateStrategy;
  const onDelete = typeof strategy === 'object' && strategy !== null && (strategy as { type?: unknown }).type === 'OnDelete';
  const updated = numberAt(status, 'updatedReplicas');
  if (!onDelete && status.updateRevision !== undefined && status.currentRevision !== status.updateRevision) {
    return { status: 'Progressing', message: `${name} is rolling out revision ${String(status.updateRevision)} (${updated} of ${desired} replicas updated).` };
  }
  return { status: 'Ready', message: `${name} has ${ready} of ${desired} replicas ready.` };
}
