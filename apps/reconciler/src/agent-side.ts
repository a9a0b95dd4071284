import type { ClusterConnection } from '@tidemark/cluster';
import { markAgentClusters, startAgentHeartbeat, startAgentWatch } from '@tidemark/cluster-health';
import type { Logger, RedisClient } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import { startSourcePrefetch } from '@tidemark/poller';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';
import reconcilerPackage from '../package.json' with { type: 'json' };

/** tidemarkVersion is the release an agent reports in its heartbeat. */
export const tidemarkVersion: string = reconcilerPackage.version;

export interface AgentSideOptions {
  config: ReconcilerConfig;
  /** The connected clusters: an agent's own one. */
  clusters: ReadonlyMap<string, ClusterConnection>;
  redis: RedisClient;
  queues: ReconcileQueues;
  statusStore: StatusStore;
  /** The sources this process reads (an agent fetches them ahead of its jobs). */
  sources: ReadonlyMap<string, GitSource>;
  log: Logger;
}

/**
 * startAgentSide starts the heartbeat half that belongs to this process (docs/agents.md). An agent
 * writes its heartbeat (its first one before it returns, so the hub never sees a running agent as
 * silent), and fetches a source as soon as the hub says it moved, ahead of the job (startSourcePrefetch). A hub records which clusters agents serve, for the dashboard and the CLI, and watches
 * their heartbeats. It returns the stop.
 */
export async function startAgentSide(options: AgentSideOptions): Promise<() => Promise<void>> {
  const { config, redis, statusStore, log } = options;
  if (config.role === 'agent') {
    const [cluster, connection] = [...options.clusters][0]!;
    const heartbeat = startAgentHeartbeat({ cluster, connection, redis, keys: statusStore.keys, version: tidemarkVersion, ttlMs: config.agents.heartbeatTtlMs, log });
    await heartbeat.beat();
    const stopPrefetch = await startSourcePrefetch({ redis, keys: statusStore.keys, sourceOf: (name) => options.sources.get(name), log }).catch(async (error: unknown) => {
      await heartbeat.stop();
      throw error;
    });
    return async () => {
      await stopPrefetch();
      await heartbeat.stop();
    };
  }
  const agentClusters = config.clusters.filter((cluster) => cluster.agent).map((cluster) => cluster.name);
  await markAgentClusters(redis, statusStore.keys, agentClusters);
  if (agentClusters.length === 0) return async () => undefined;
  // An agent's Redis user may write only its cluster's keys: the hub indexes its records for it.
  await statusStore.indexClusters(agentClusters);
  const watch = startAgentWatch({ clusters: agentClusters, redis, queues: options.queues, statusStore, intervalMs: config.healthCheck.intervalMs, log });
  return async () => watch.stop();
}
