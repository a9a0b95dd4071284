import { listOwnerLabelled, type ClusterConnection } from '@tidemark/cluster';
import type { Logger, RedisClient } from '@tidemark/contracts';
import { rebuildAfterLoss } from '@tidemark/fanout';
import type { PollResult } from '@tidemark/git-source';
import { RecordsLost, type StatusStore } from '@tidemark/status-store';

/** RecordsRebuild is the reconciler's part in rebuilding records after a Redis loss. */
export interface RecordsRebuild {
  /** afterSchemaClaim marks the loss when the claim found no earlier one (`previous` 0: Redis new or wiped). */
  afterSchemaClaim(previous: number): Promise<void>;
  /**
   * beforeRoute rebuilds the poll's source's records where the loss is not yet rebuilt; when any
   * record was written, the poll is routed as one without a previous revision, so every object
   * the source has or had (now known again) is routed, and what Git dropped gets its prune.
   */
  beforeRoute(result: PollResult): Promise<PollResult>;
}

/** RecordsRebuildDeps are what recordsRebuild reads and writes through. */
export interface RecordsRebuildDeps {
  redis: RedisClient;
  statusStore: StatusStore;
  connections: ReadonlyMap<string, ClusterConnection>;
  log: Logger;
  /** How long a poll waits for a rebuild (rebuildsWithin). @defaultValue 10000 */
  budgetMs?: number;
  /**
   * Whether a loss found at the schema claim starts each cluster's sweep at once, for the first polls
   * to use (sweepsAhead); a role that never polls leaves it off. @defaultValue false
   */
  sweepAhead?: boolean;
  /** How long a sweep started ahead is kept for the polls of the sources. @defaultValue 60000 */
  sweepKeptMs?: number;
}

/**
 * recordsRebuild wires rebuildAfterLoss to the clusters' main connections (Tidemark's own field
 * manager). A poll waits for it at most `budgetMs` (rebuildsWithin): the sweep lists every kind on
 * every cluster, and a cluster answering slowly (a CRD's storage still initializing) held each
 * poll, and every push behind it, for minutes.
 */
export function recordsRebuild(deps: RecordsRebuildDeps): RecordsRebuild {
  const lost = new RecordsLost(deps.redis, deps.statusStore.keys);
  const connection = (cluster: string) => {
    const found = deps.connections.get(cluster);
    if (!found) throw new Error(`cluster ${cluster} has no connection`);
    return found;
  };
  const sweep = (cluster: string) => listOwnerLabelled(connection(cluster));
  let ahead: SweepsAhead<Awaited<ReturnType<typeof sweep>>> | undefined;
  const rebuilds = rebuildsWithin(deps.budgetMs ?? 10_000, (source, budgetMs) => {
    deps.log.warn({ source, budgetMs }, 'rebuilding the records Redis lost takes longer than a poll waits; this poll is routed now, and everything again at the first poll after the rebuild wrote records');
  });
  return {
    async afterSchemaClaim(previous) {
      if (previous !== 0) return;
      deps.log.warn({}, 'Redis holds no schema claim (a new or wiped Redis): each source rebuilds its records from the owner labels in its clusters at its next poll');
      await lost.mark(new Date());
      // The sweeps start now, beside the rest of the start, so the first poll does not wait for them.
      if (deps.sweepAhead) ahead = sweepsAhead(deps.connections.keys(), sweep, deps.sweepKeptMs ?? 60_000);
    },
    async beforeRoute(result) {
      const written = await rebuilds(result.source, () => rebuildAfterLoss({
        source: result.source, revision: result.revision, clusters: [...deps.connections.keys()],
        statusStore: deps.statusStore, lost, log: deps.log,
        listLabelled: (cluster) => ahead?.take(cluster) ?? sweep(cluster),
        fieldManagerOf: (cluster) => connection(cluster).fieldManager,
      }));
      if (written === 0 || !result.previousRevision) return result;
      const { previousRevision: _routedAgain, ...everything } = result;
      return everything;
    },
  };
}

/**
 * rebuildsWithin runs one rebuild per source at a time and lets a poll wait for it at most
 * `budgetMs`. It returns the records written that this poll has not routed yet: those of the
 * rebuild it waited for, plus those of an earlier one that ended after its poll stopped waiting
 * (each counted once), so the first poll after a rebuild wrote records routes everything again.
 * A poll that stops waiting gets 0 and routes its own changes; the rebuild goes on meanwhile.
 */
export function rebuildsWithin(budgetMs: number, onSlow: (source: string, budgetMs: number) => void): (source: string, rebuild: () => Promise<number>) => Promise<number> {
  const running = new Map<string, Promise<number>>();
  const unrouted = new Map<string, number>();
  return async (source, rebuild) => {
    let attempt = running.get(source);
    if (!attempt) {
      attempt = rebuild().then((written) => {
        if (written > 0) unrouted.set(source, (unrouted.get(source) ?? 0) + written);
        return written;
      }).finally(() => running.delete(source));
      // A rebuild that fails after its poll stopped waiting is logged by rebuildAfterLoss; a later poll tries again.
      attempt.catch(() => undefined);
      running.set(source, attempt);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), budgetMs); });
    try {
      if ((await Promise.race([attempt, late])) === 'late') onSlow(source, budgetMs);
    } finally {
      clearTimeout(timer);
    }
    const written = unrouted.get(source) ?? 0;
    unrouted.delete(source);
    return written;
  };
}

/** SweepsAhead hands out the sweeps started at the schema claim. */
export interface SweepsAhead<T> {
  /** take is the cluster's sweep started ahead, or undefined once it was dropped (the caller sweeps afresh). */
  take(cluster: string): Promise<T> | undefined;
}

/**
 * sweepsAhead starts every cluster's sweep now and keeps it for `keptMs`: every source whose first
 * rebuild comes meanwhile reads the same sweep (each filters its own objects), and a later one, or a
 * retry, sweeps afresh. An object applied after the sweep started has the record its run wrote, so a
 * sweep taken a moment before the poll misses nothing a rebuild needs. One that fails is swept again.
 */
export function sweepsAhead<T>(clusters: Iterable<string>, sweep: (cluster: string) => Promise<T>, keptMs: number): SweepsAhead<T> {
  const started = new Map<string, Promise<T>>();
  for (const cluster of clusters) {
    const attempt = sweep(cluster);
    attempt.catch(() => undefined);
    started.set(cluster, attempt);
  }
  // Dropped after keptMs: the objects found are not held longer than the first polls need them.
  setTimeout(() => started.clear(), keptMs).unref();
  return {
    take(cluster) {
      const attempt = started.get(cluster);
      return attempt?.catch(() => {
        started.delete(cluster);
        return sweep(cluster);
      });
    },
  };
}
