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

/**
 * keepInstallingBuiltinCrds installs the built-in CRDs on each cluster in the background, each
 * cluster on its own, retrying one that fails: a slow or dead cluster must not hold up the start
 * of the others. Objects of those kinds wait (not ready) until their CRD is there.
 */
export function keepInstallingBuiltinCrds(
  clusters: ReadonlyMap<string, ClusterConnection>,
  kinds: KindRegistry,
  log: { info(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void },
  retryMs = 30_000,
): { stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const attempt = (name: string, connection: ClusterConnection) => {
    installBuiltinCrds(connection, kinds).then(
      (installed) => { if (installed.length > 0) log.info({ cluster: name, installed }, 'installed built-in CRDs'); },
      (error: unknown) => {
        if (stopped) return;
        log.warn({ cluster: name, err: String(error) }, `could not install built-in CRDs yet; retrying in ${retryMs / 1000} s`);
        const timer = setTimeout(() => { timers.delete(timer); attempt(name, connection); }, retryMs);
        timers.add(timer);
      },
    );
  };
  for (const [name, connection] of clusters) attempt(name, connection);
  return {
    stop() {
      stopped = true;
      timers.forEach(clearTimeout);
    },
  };
}
