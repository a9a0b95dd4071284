// The rig runs no controllers. This stands in for the deployment controller: every Deployment it
// sees is marked available by writing its status as another field manager, as a real one would.
import { ClusterConnection, applyStatus, watchObjects, type RunningWatch } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';

export interface FakeDeploymentController {
  stop(): void;
}

export function startDeploymentController(kubeconfig: string, namespacePrefix: string): FakeDeploymentController {
  const connection = ClusterConnection.connect({ cluster: 'controller', kubeconfig, fieldManager: 'deployment-controller' });
  const marked = new Map<string, number>();
  let pending = Promise.resolve();
  const mark = async (deployment: KubernetesManifest) => {
    const generation = deployment.metadata.generation ?? 0;
    const key = `${deployment.metadata.namespace}/${deployment.metadata.name}`;
    if ((marked.get(key) ?? -1) >= generation) return;
    marked.set(key, generation);
    const replicas = (deployment as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    await applyStatus(connection, deployment, {
      observedGeneration: generation, replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas,
      conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'bench' }],
    }).catch(() => marked.delete(key));
  };
  const watch: RunningWatch = watchObjects(connection, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    onEvent: (type, object) => {
      if (type === 'DELETED' || !object.metadata.namespace?.startsWith(namespacePrefix)) return;
      // One at a time, in order: a status write per Deployment, like a controller's work queue.
      pending = pending.then(() => mark(object));
    },
  });
  return {
    stop() {
      watch.stop();
      connection.close();
    },
  };
}
