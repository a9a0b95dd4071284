import type { Logger } from 'pino';
import { messageOf } from '@tidemark/contracts';
import type { PipelineDependencies, WindowHold } from '@tidemark/pipeline';
import { syncWindowHold, type ClusterOfWindow, type SyncWindow } from '@tidemark/placement';

export interface SyncWindowsOptions {
  windows: readonly SyncWindow[];
  clusters: readonly ClusterOfWindow[];
  /** The time windows are judged at: a test moves it; a deployment passes none. @defaultValue the system clock */
  clock?: (() => Date) | undefined;
}

/** windowDependencies are the pipeline's sync-window dependencies; none without windows, so a run asks nothing. */
export function windowDependencies(options: SyncWindowsOptions, takeWindowPass: NonNullable<PipelineDependencies['takeWindowPass']>): Pick<PipelineDependencies, 'syncWindowOf' | 'takeWindowPass'> {
  return options.windows.length > 0 ? { syncWindowOf: syncWindowOf(options), takeWindowPass } : {};
}

/**
 * syncWindowOf is the pipeline's question "does a window hold this cluster for this source now?",
 * answered by the pure verdict at the clock's time. A cluster not in the list has no labels: only
 * windows that name it, or cover every cluster, hold it.
 */
export function syncWindowOf(options: SyncWindowsOptions): (cluster: string, source: string) => WindowHold | undefined {
  const clock = options.clock ?? (() => new Date());
  return (cluster, source) => {
    const now = clock();
    const hold = syncWindowHold(now, options.windows, clusterOf(options, cluster), source);
    if (!hold) return undefined;
    return { description: hold.description, manualSync: hold.manualSync, opensInMs: hold.until ? hold.until.getTime() - now.getTime() : undefined };
  };
}

export interface SyncWindowMonitorOptions extends SyncWindowsOptions {
  /** How often the windows are looked at. @defaultValue 10_000 */
  intervalMs?: number;
  /** Told at every look, per cluster: whether windows hold it for every source, and the seconds since the last look. */
  onLook(cluster: string, held: boolean, seconds: number): void;
  /** Told when a window that held a cluster (for any source) lets go, so its objects look again now rather than at their recheck. */
  onOpened(cluster: string): Promise<unknown>;
  log: Logger;
}

/**
 * startSyncWindowMonitor looks at every cluster's windows on a timer: it keeps the time a cluster
 * spends held (the metric) and wakes a cluster's objects the moment a window lets go, so they do
 * not wait out their recheck. It writes nothing to a cluster itself.
 */
export function startSyncWindowMonitor(options: SyncWindowMonitorOptions): { stop(): void } {
  if (options.windows.length === 0) return { stop: () => undefined };
  const clock = options.clock ?? (() => new Date());
  // The sources windows name, besides "every source": a window for one source also holds, and lets go.
  const sources = [undefined, ...new Set(options.windows.flatMap((window) => window.sources ?? []))];
  const held = new Map<string, Set<string | undefined>>();
  let last = clock().getTime();
  const look = () => {
    const now = clock();
    const seconds = Math.max(0, (now.getTime() - last) / 1000);
    last = now.getTime();
    for (const cluster of options.clusters) {
      const holding = new Set(sources.filter((source) => syncWindowHold(now, options.windows, cluster, source)));
      options.onLook(cluster.name, holding.has(undefined), seconds);
      const before = held.get(cluster.name) ?? new Set();
      held.set(cluster.name, holding);
      if ([...before].some((source) => !holding.has(source))) {
        options.onOpened(cluster.name).catch((error: unknown) => options.log.warn({ cluster: cluster.name, err: messageOf(error) }, 'could not wake the objects of a cluster a sync window let go'));
      }
    }
  };
  look();
  const timer = setInterval(look, options.intervalMs ?? 10_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function clusterOf(options: SyncWindowsOptions, name: string): ClusterOfWindow {
  return options.clusters.find((cluster) => cluster.name === name) ?? { name, labels: {} };
}
