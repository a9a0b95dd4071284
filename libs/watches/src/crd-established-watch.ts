import { watchObjects, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import type { KubernetesManifest, Logger } from '@tidemark/contracts';
import { crdToken } from '@tidemark/ordering';

export interface CrdEstablishedWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  /** wake enqueues the objects waiting on the tokens (libs/ordering's DependencyWaits.wake). */
  wake(cluster: string, tokens: readonly string[]): Promise<unknown>;
  log?: Logger;
}

/**
 * watchCrdsEstablished wakes the custom resources that wait for their kind the moment a CRD
 * serving it is Established, whoever applied it (a Git object of any source, or a person), so
 * they start at once instead of at their next recheck.
 */
export function watchCrdsEstablished(options: CrdEstablishedWatchOptions): { synced: Promise<void>; stop(): void } {
  const watches: RunningWatch[] = [];
  for (const [cluster, connection] of options.clusters) {
    watches.push(watchObjects(connection, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      onEvent(type, object: KubernetesManifest) {
        const token = type === 'DELETED' ? undefined : establishedToken(object);
        if (!token) return;
        options.wake(cluster, [token]).catch((error: unknown) => options.log?.warn({ cluster, crd: object.metadata.name, err: String(error) }, 'could not wake the objects waiting for a CRD'));
      },
      onError: (error) => options.log?.warn({ cluster, err: String(error) }, 'CRD watch for dependency wake-ups failed; retrying'),
    }));
  }
  return {
    synced: Promise.all(watches.map((watch) => watch.synced)).then(() => undefined),
    stop: () => watches.forEach((watch) => watch.stop()),
  };
}

/** establishedToken is the wait token of an Established CRD's kind, or undefined while it is not. */
function establishedToken(crd: KubernetesManifest): string | undefined {
  const spec = crd.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
  const conditions = (crd.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  const established = conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
  if (!established || typeof spec?.group !== 'string' || typeof spec.names?.kind !== 'string') return undefined;
  return crdToken(spec.group, spec.names.kind);
}
