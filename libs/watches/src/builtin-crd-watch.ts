import { watchObjects, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import type { KubernetesManifest, Logger } from '@tidemark/contracts';

export interface BuiltinCrdWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  /** The CRD names of the built-in kinds. */
  crdNames: readonly string[];
  /** Installs the built-in CRDs on one cluster again; called after a change settles. */
  reinstall(cluster: string): Promise<unknown>;
  /** How long a burst of changes may last before the reinstall. @defaultValue 1000 */
  settleMs?: number;
  log?: Logger;
}

/**
 * watchBuiltinCrds watches CustomResourceDefinitions on every cluster and, when one of the
 * built-in kinds' CRDs is deleted or changed, reinstalls them there. The reinstall compares a
 * dry-run with the live CRD first, so Tidemark's own writes and status updates cost one
 * comparison each and write nothing.
 */
export function watchBuiltinCrds(options: BuiltinCrdWatchOptions): { synced: Promise<void>; stop(): Promise<void> } {
  const names = new Set(options.crdNames);
  const timers = new Map<string, NodeJS.Timeout>();
  const watches: RunningWatch[] = [];
  // Reinstalls under way; stop waits for them, so nothing writes a CRD after it returns.
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  const schedule = (cluster: string) => {
    if (stopped || timers.has(cluster)) return;
    timers.set(cluster, setTimeout(() => {
      timers.delete(cluster);
      const reinstall = options.reinstall(cluster).catch((error: unknown) => {
        options.log?.warn({ cluster, err: String(error) }, 'could not reinstall a built-in CRD; the next change or the start-up retry will');
      }).finally(() => running.delete(reinstall));
      running.add(reinstall);
    }, options.settleMs ?? 1_000));
  };
  for (const [cluster, connection] of options.clusters) {
    watches.push(watchObjects(connection, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      onEvent(type, object: KubernetesManifest, initial) {
        if (initial || !names.has(object.metadata.name)) return;
        if (type === 'DELETED') options.log?.warn({ cluster, crd: object.metadata.name }, 'a built-in CRD was deleted; reinstalling it');
        schedule(cluster);
      },
      onError: (error) => options.log?.warn({ cluster, err: String(error) }, 'built-in CRD watch failed; retrying'),
    }));
  }
  return {
    synced: Promise.all(watches.map((watch) => watch.synced)).then(() => undefined),
    async stop() {
      stopped = true;
      watches.forEach((watch) => watch.stop());
      timers.forEach(clearTimeout);
      timers.clear();
      await Promise.all(running);
    },
  };
}
