import { messageOf, type Logger } from '@tidemark/contracts';
import type { SyncWindow } from './sync-window';
import { syncWindowHold, type ClusterOfWindow } from './window-verdict';

export interface SyncWindowsOptions {
  windows: readonly SyncWindow[];
  /** The registered clusters with their labels, read at every question: a relabelled or added cluster counts at once. */
  clusters: () => readonly ClusterOfWindow[];
  /** The time windows are judged at: a test moves it; a deployment passes none. @defaultValue the system clock */
  clock?: (() => Date) | undefined;
}

/** WindowHoldNow is a window that holds a cluster now, as a run is told (the pipeline's WindowHold). */
export interface WindowHoldNow {
  readonly description: string;
  readonly manualSync: boolean;
  /** How long until it may let writes go; undefined when the windows do not say. */
  readonly opensInMs: number | undefined;
}

/**
 * syncWindowOf is the pipeline's question "does a window hold this cluster for this source now?",
 * answered by the pure verdict at the clock's time. A cluster not in the list has no labels: only
 * windows that name it, or cover every cluster, hold it.
 */
export function syncWindowOf(options: SyncWindowsOptions): (cluster: string, source: string) => WindowHoldNow | undefined {
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
 * startSyncWindowMonitor looks at every cluster's windows on a timer (SyncWindowMonitor.look):
 * none without windows.
 */
export function startSyncWindowMonitor(options: SyncWindowMonitorOptions): { stop(): void } {
  if (options.windows.length === 0) return { stop: () => undefined };
  // A misspelt name leaves a cluster unprotected, so it is said at start (a Cluster object may still come).
  for (const name of unknownClusters(options)) options.log.warn({ cluster: name }, `a sync window names cluster ${name}, which is not registered; the window covers it once it is`);
  const monitor = new SyncWindowMonitor(options);
  monitor.look();
  const timer = setInterval(() => monitor.look(), options.intervalMs ?? 10_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * SyncWindowMonitor keeps the time each cluster spends held (the metric) and wakes a cluster's
 * objects the moment a window lets go of it, for any source, so they do not wait out their
 * recheck. It writes nothing to a cluster itself.
 */
export class SyncWindowMonitor {
  // The sources windows name, besides "every source": a window for one source also holds, and lets go.
  private readonly sources: (string | undefined)[];
  private readonly held = new Map<string, Set<string | undefined>>();
  private readonly clock: () => Date;
  private last: number;

  constructor(private readonly options: SyncWindowMonitorOptions) {
    this.sources = [undefined, ...new Set(options.windows.flatMap((window) => window.sources ?? []))];
    this.clock = options.clock ?? (() => new Date());
    this.last = this.clock().getTime();
  }

  /** look judges every cluster at the clock's time, once. */
  look(): void {
    const now = this.clock();
    const seconds = Math.max(0, (now.getTime() - this.last) / 1000);
    this.last = now.getTime();
    for (const cluster of this.options.clusters()) {
      const holding = new Set(this.sources.filter((source) => syncWindowHold(now, this.options.windows, cluster, source)));
      this.options.onLook(cluster.name, holding.has(undefined), seconds);
      const before = this.held.get(cluster.name) ?? new Set();
      this.held.set(cluster.name, holding);
      if ([...before].some((source) => !holding.has(source))) this.wake(cluster.name);
    }
  }

  private wake(cluster: string): void {
    this.options.onOpened(cluster).catch((error: unknown) => this.options.log.warn({ cluster, err: messageOf(error) }, 'could not wake the objects of a cluster a sync window let go'));
  }
}

/** holdForEverySource is whether windows hold a cluster for every source now (for notifications); undefined without windows. */
export function holdForEverySource(options: SyncWindowsOptions): ((cluster: string) => { description: string } | undefined) | undefined {
  if (options.windows.length === 0) return undefined;
  const clock = options.clock ?? (() => new Date());
  return (cluster) => syncWindowHold(clock(), options.windows, clusterOf(options, cluster), undefined);
}

/** unknownClusters lists the names windows give in `clusters` that no registered cluster has. */
export function unknownClusters(options: Pick<SyncWindowsOptions, 'windows' | 'clusters'>): string[] {
  const known = new Set(options.clusters().map((cluster) => cluster.name));
  return [...new Set(options.windows.flatMap((window) => window.clusters ?? []))].filter((name) => !known.has(name));
}

function clusterOf(options: SyncWindowsOptions, name: string): ClusterOfWindow {
  return options.clusters().find((cluster) => cluster.name === name) ?? { name, labels: {} };
}
