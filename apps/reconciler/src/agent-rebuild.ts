import { listOwnerLabelled, type ClusterConnection } from '@tidemark/cluster';
import { idle, messageOf, readSourceStatus, runnable, type Logger, type ReconcileJob, type RedisClient, type Runnable } from '@tidemark/contracts';
import { rebuildAfterLoss, routePoll } from '@tidemark/fanout';
import type { GitSource } from '@tidemark/git-source';
import { PlacementCache, type ClusterTarget } from '@tidemark/placement';
import type { ReconcileQueues } from '@tidemark/queue';
import { RecordsLost, type StatusStore } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';

export interface AgentRebuildOptions {
  /** The one cluster the agent serves, and its in-cluster connection. */
  cluster: string;
  connection: ClusterConnection;
  /** The cluster as placement sees it (its labels). */
  target: ClusterTarget;
  redis: RedisClient;
  statusStore: StatusStore;
  queues: Pick<ReconcileQueues, 'enqueue'>;
  /** The sources this process reads, looked up at each check (Source objects come and go). */
  sources: ReadonlyMap<string, GitSource>;
  /** How often the loss mark is read: one HGET a check, whether or not there was a loss. */
  intervalMs: number;
  log: Logger;
}

export interface AgentRebuild {
  /** before runs ahead of each job: a source the loss left pending on this cluster is rebuilt first (nothing to read otherwise). */
  before(job: ReconcileJob): Promise<void>;
  /** check reads the loss mark and rebuilds every source still pending (the timer calls it; tests may). */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * agentRebuildPart is an agent's rebuild after a Redis loss (startAgentRebuild); idle in the other
 * roles, whose poller rebuilds the clusters they connect to (records-rebuild.ts). Started before
 * the workers, so its first check is done before the first job.
 */
export function agentRebuildPart(config: ReconcilerConfig, deps: Omit<AgentRebuildOptions, 'cluster' | 'connection' | 'target' | 'intervalMs'> & { clusters: ReadonlyMap<string, ClusterConnection> }): Runnable<AgentRebuild | undefined> {
  const [served] = deps.clusters;
  if (config.role !== 'agent' || !served) return idle('agent rebuild');
  const [cluster, connection] = served;
  const labels = config.clusters.find((entry) => entry.name === cluster)?.labels ?? {};
  return runnable('agent rebuild', () => startAgentRebuild({ ...deps, cluster, connection, target: { name: cluster, labels }, intervalMs: config.healthCheck.intervalMs }));
}

/**
 * startAgentRebuild is an agent's part in rebuilding records after a Redis loss (docs/objects.md).
 * The hub marks the loss at its schema claim but holds no credential for the agent's cluster, so it
 * cannot sweep it: the agent does, within its Redis ACL (it reads the hub's mark, and marks each
 * rebuild under its cluster's own tag). A source is rebuilt on this cluster before the agent's
 * first run of it after the loss (`before`), or at the next check when no job comes: from the owner
 * labels (rebuildAfterLoss), at the revision the job names or the hub delivered, as the revision
 * gate admits it. The hub may have routed its first poll before the records were back, so the agent
 * then routes the source again for its own cluster and queues the prunes only (what else the hub
 * routed stays the hub's): each goes through the pipeline's usual guards and mass-prune hold. A
 * rebuild is marked finished only after its prunes are queued; one that fails stays pending.
 */
export async function startAgentRebuild(options: AgentRebuildOptions): Promise<AgentRebuild> {
  const { cluster, connection, statusStore, log } = options;
  const lost = new RecordsLost(options.redis, statusStore.keys);
  const placement = new PlacementCache();
  // The loss last read, and the sources found rebuilt since it: a new loss has a new time.
  let lossAt: string | undefined;
  const rebuilt = new Set<string>();
  const running = new Map<string, Promise<boolean>>();

  const rebuildAt = async (name: string, source: GitSource, revision: string) => {
    const admitted = await source.admitRevision(revision);
    await rebuildAfterLoss({
      source: name, revision: admitted, clusters: [cluster], statusStore, lost, log,
      listLabelled: () => listOwnerLabelled(connection),
      fieldManagerOf: () => connection.fieldManager,
      rebuilt: async () => {
        const routed = await routePoll({ source: name, revision: admitted, moved: false, changes: [], errors: [], durationMs: 0, fetchedObjects: 0 }, { source, placement, clusters: [options.target], statusStore });
        const prunes = routed.filter((job) => job.cluster === cluster && job.reason === 'git-removed');
        for (const job of prunes) await options.queues.enqueue(job);
        if (prunes.length > 0) log.warn({ source: name, cluster, revision: admitted, prunes: prunes.length }, 'queued the prunes of what Git dropped while Redis had lost the records');
      },
    });
  };
  /** attempt rebuilds one source if still pending, at `revision` or the one the hub delivered; false when it could not (yet). */
  const attempt = async (name: string, source: GitSource, revision: string | undefined): Promise<boolean> => {
    try {
      if ((await lost.pending(name, [cluster])).length === 0) return true;
      // Without a job, the revision the hub delivered; none yet: the hub's first poll comes first.
      const at = revision ?? (await readSourceStatus(options.redis, statusStore.keys, name)).revision;
      if (at === undefined) return false;
      await rebuildAt(name, source, at);
      return (await lost.pending(name, [cluster])).length === 0;
    } catch (error) {
      log.warn({ source: name, cluster, err: messageOf(error) }, 'could not rebuild the records Redis lost; trying again at the next check');
      return false;
    }
  };
  /**
   * settle rebuilds one source if still pending, one attempt at a time per source. A job that
   * finds an attempt running waits for it, and tries again at its own revision if that one could
   * not rebuild (a check that ran before the hub delivered any revision).
   */
  const settle = async (name: string, revision?: string): Promise<void> => {
    const source = options.sources.get(name);
    for (;;) {
      if (!source || lossAt === undefined || rebuilt.has(name)) return;
      const other = running.get(name);
      if (!other) break;
      if (await other) return;
      if (revision === undefined) return;
    }
    const mine = attempt(name, source, revision).finally(() => running.delete(name));
    running.set(name, mine);
    if (await mine) rebuilt.add(name);
  };
  const check = async () => {
    const at = await lost.lostAt();
    if (at !== lossAt) rebuilt.clear();
    lossAt = at;
    if (at === undefined) return;
    for (const name of options.sources.keys()) await settle(name);
  };
  const checked = () => check().catch((error: unknown) => log.warn({ cluster, err: messageOf(error) }, 'could not read whether Redis lost the records; trying again at the next check'));
  await checked();
  const timer = setInterval(() => void checked(), options.intervalMs);
  timer.unref();
  return {
    before: (job) => settle(job.source, job.revision),
    check,
    async stop() {
      clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
