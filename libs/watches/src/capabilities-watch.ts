import { watchObjects, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import type { Logger } from '@tidemark/contracts';

/** When discovery is read again after a CRD change, besides at once. */
const rereadDelaysMs = [1_000, 3_000, 10_000];

export interface CapabilitiesWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  /** refresh reads a cluster's discovery again (libs/cluster's CapabilitiesCache.refresh); true when it changed. */
  refresh(cluster: string): Promise<boolean>;
  /** changed is told after a cluster's capabilities changed (the reconciler polls its sources, to render again). */
  changed(cluster: string): void;
  log?: Logger;
}

/**
 * watchCapabilities keeps what Helm units render with in step with each cluster: when a CRD becomes
 * Established or goes away, whoever did it, the cluster's discovery is read again, and a change
 * is told, so a chart that renders a ServiceMonitor only where its API exists renders it there now.
 */
export function watchCapabilities(options: CapabilitiesWatchOptions): { synced: Promise<void>; stop(): void } {
  const watches: RunningWatch[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  for (const [cluster, connection] of options.clusters) {
    let synced = false;
    const refresh = () => {
      options.refresh(cluster).then((changed) => {
        if (changed) options.changed(cluster);
      }, (error: unknown) => options.log?.warn({ cluster, err: String(error) }, 'could not read the cluster\'s discovery again after a CRD changed'));
    };
    const watch = watchObjects(connection, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      onEvent(type, object) {
        // The first list is what discovery already said; one read after it covers any change during it.
        if (!synced) return;
        const conditions = (object.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions ?? [];
        if (type !== 'DELETED' && !conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')) return;
        // Discovery may list a just-Established CRD a moment later: read again after it, too.
        refresh();
        for (const delayMs of rereadDelaysMs) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            refresh();
          }, delayMs);
          timers.add(timer);
        }
      },
      onError: (error) => options.log?.warn({ cluster, err: String(error) }, 'CRD watch for Helm capabilities failed; retrying'),
    });
    void watch.synced.then(() => {
      synced = true;
      refresh();
    });
    watches.push(watch);
  }
  return {
    synced: Promise.all(watches.map((watch) => watch.synced)).then(() => undefined),
    stop: () => {
      watches.forEach((watch) => watch.stop());
      timers.forEach((timer) => clearTimeout(timer));
    },
  };
}
