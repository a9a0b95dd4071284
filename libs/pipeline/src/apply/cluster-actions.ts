import { applyObject, deleteObject, getObject, listObjects, type ClusterConnection } from '@tidemark/cluster';
import { groupOf, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterActions } from '@tidemark/kinds';

/**
 * clusterActions gives a kind the small read-and-act surface it may use. Partial patches go
 * through a second field manager: under Tidemark's main manager, applying a partial object
 * would release every field the full apply owns.
 */
export function clusterActions(reader: ClusterConnection, patcher: ClusterConnection): ClusterActions {
  return {
    get: (apiVersion, kind, namespace, name) => getObject(reader, { apiVersion, kind, namespace, name }),
    list: (apiVersion, kind, namespace, labelSelector) => listObjects(reader, apiVersion, kind, namespace, labelSelector),
    delete: async (object: KubernetesManifest) => {
      await deleteObject(reader, { group: groupOf(object.apiVersion), kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name });
    },
    applyPatch: async (object: KubernetesManifest) => {
      await applyObject(patcher, object);
    },
  };
}
