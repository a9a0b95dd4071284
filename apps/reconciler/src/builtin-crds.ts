import { applyChangeSet, getObject, type ClusterConnection } from '@tidemark/cluster';
import type { KindRegistry } from '@tidemark/kinds';

/** The field manager that installs built-in CRDs. */
export const crdInstallerManager = 'tidemark-crds';

/**
 * installBuiltinCrds applies the CRD of every registered kind that a cluster lacks, or that
 * Tidemark installed before (so upgrades reach it). A CRD someone else manages, such as the
 * original ConfigWatcher CRD pushed through Git, is left as it is.
 */
export async function installBuiltinCrds(cluster: ClusterConnection, kinds: KindRegistry): Promise<string[]> {
  // A manager of its own: a CRD pushed through Git is applied as 'tidemark' and is not ours to replace.
  const connection = cluster.asManager(crdInstallerManager);
  const toApply = [];
  for (const plugin of kinds.list()) {
    const live = await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: plugin.crd.metadata.name });
    const managers = (live?.metadata.managedFields as { manager?: string; operation?: string }[] | undefined) ?? [];
    const ours = managers.some((entry) => entry.manager === connection.fieldManager && entry.operation === 'Apply');
    if (!live || ours) toApply.push(plugin.crd);
  }
  const changes = await applyChangeSet(connection, toApply);
  return changes.filter((change) => change.action !== 'unchanged').map((change) => change.subject);
}
