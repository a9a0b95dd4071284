import type { ClusterConnection } from '@tidemark/cluster';
import { messageOf, readAgentHeartbeat, readClusterHealth, type Logger, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import type { QueueSwitch } from './health-monitor';
import { writeAgentHeartbeat, writeClusterHealth } from './health-records';

export interface AgentHeartbeatOptions {
  /** The cluster the agent serves, and its connection (for the server version). */
  cluster: string;
  connection: ClusterConnection;
  redis: RedisClient;
  keys: RecordKeys;
  /** The agent's Tidemark version. */
  version: string;
  /** How long each heartbeat lives; one is written every third of it. */
  ttlMs: number;
  log?: Logger;
}

/**
 * startAgentHeartbeat writes the agent's heartbeat now and every third of its TTL, with the
 * cluster's server version (read again each time; the last answer is kept when the server does
 * not answer: the health monitor says whether it is reachable). Stop deletes the record, so a
 * clean shutdown is seen at once and a killed agent after the TTL.
 */
export function startAgentHeartbeat(options: AgentHeartbeatOptions): { stop(): Promise<void>; beat(): Promise<void> } {
  let serverVersion: string | undefined;
  let stopped = false;
  const beat = async () => {
    serverVersion = await readServerVersion(options.connection, options.cluster, Math.min(options.ttlMs / 3, 5_000)).catch((error: unknown) => {
      options.log?.warn({ cluster: options.cluster, err: messageOf(error) }, 'server version not read for the agent heartbeat');
      return serverVersion;
    });
    if (stopped) return;
    await writeAgentHeartbeat(options.redis, options.keys, {
      cluster: options.cluster, version: options.version, lastSeen: new Date().toISOString(), ttlMs: options.ttlMs, ...(serverVersion ? { serverVersion } : {}),
    });
  };
  const beatLogged = () => beat().catch((error: unknown) => options.log?.warn({ cluster: options.cluster, err: messageOf(error) }, 'agent heartbeat not written'));
  const timer = setInterval(() => void beatLogged(), Math.max(Math.floor(options.ttlMs / 3), 100));
  timer.unref();
  return {
    beat,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await options.redis.del(options.keys.agentHeartbeat(options.cluster)).catch(() => 0);
    },
  };
}

async function readServerVersion(connection: ClusterConnection, cluster: string, timeoutMs: number): Promise<string | undefined> {
  const answer = await connection.client.request<{ gitVersion?: unknown }>({ method: 'GET', path: '/version', what: `server version of ${cluster}`, timeoutMs });
  return typeof answer?.gitVersion === 'string' ? answer.gitVersion.slice(0, 64) : undefined;
}

export interface AgentWatchOptions {
  /** The clusters agents serve: the hub opens no connection to them. */
  clusters: readonly string[];
  redis: RedisClient;
  queues: QueueSwitch;
  statusStore: StatusStore;
  /** @defaultValue 5000 */
  intervalMs?: number;
  log?: Logger;
}

/**
 * startAgentWatch is the hub's side of agent-served clusters: it reads each one's heartbeat on an
 * interval. A cluster whose heartbeat is gone becomes Unavailable and its queue is paused, so its
 * jobs wait for an agent instead of failing. It never marks a cluster Available: the agent's own
 * health monitor does, once it runs and its API server answers, and it resumes the queue and
 * re-enqueues the cluster's objects, as after any outage. Every hub replica may run it; its writes
 * say the same thing.
 */
export function startAgentWatch(options: AgentWatchOptions): { stop(): void; checkNow(): Promise<void> } {
  const checkNow = async () => {
    await Promise.all(options.clusters.map((cluster) => checkAgent(cluster, options).catch((error: unknown) => options.log?.warn({ cluster, err: messageOf(error) }, 'agent heartbeat check failed'))));
  };
  const timer = setInterval(() => void checkNow(), options.intervalMs ?? 5_000);
  timer.unref();
  void checkNow();
  return { checkNow, stop: () => clearInterval(timer) };
}

async function checkAgent(cluster: string, options: AgentWatchOptions): Promise<void> {
  const keys = options.statusStore.keys;
  if (await readAgentHeartbeat(options.redis, keys, cluster)) return;
  const previous = await readClusterHealth(options.redis, keys, cluster);
  const now = new Date().toISOString();
  const message = `Cluster ${cluster} is unavailable: no heartbeat from the agent that serves it. Its queue is paused until an agent runs there again.`;
  await writeClusterHealth(options.redis, keys, { cluster, state: 'Unavailable', since: previous.state === 'Unavailable' ? previous.since : now, lastCheck: now, message, queuePaused: true });
  if (previous.state === 'Unavailable' && previous.queuePaused) return;
  await options.queues.pause(cluster);
  options.log?.warn({ cluster }, 'no heartbeat from the agent; cluster unavailable, queue paused');
  await options.statusStore.announceCluster(cluster);
}
