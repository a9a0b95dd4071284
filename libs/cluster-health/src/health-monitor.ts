import { randomUUID } from 'node:crypto';
import type { ClusterConnection } from '@tidemark/cluster';
import { RedisLease, readClusterHealth, messageOf, type ClusterHealth, type Logger, type RecordKeys } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import type { RedisClient } from '@tidemark/contracts';
import { writeClusterHealth } from './health-records';

/** QueueSwitch is the part of the queues the monitor drives. */
export interface QueueSwitch {
  pause(cluster: string): Promise<void>;
  resume(cluster: string): Promise<void>;
}

export interface HealthMonitorOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  queues: QueueSwitch;
  statusStore: StatusStore;
  /** Health records and leases are named by the status store's keys. */
  redis: RedisClient;
  /** Called once a cluster is back, to re-enqueue its objects. */
  onRecovered(cluster: string): Promise<void>;
  /** @defaultValue 5000 */
  intervalMs?: number;
  /** A health request slower than this fails. @defaultValue 5000 */
  timeoutMs?: number;
  /**
   * While a cluster is Available and no request or watch of it failed since the last probe, probe it
   * only this often: at steady state the watches stand in for most probes (a broken watch
   * reconnects at once, and its failure brings the next probe back to intervalMs). @defaultValue intervalMs
   */
  quietIntervalMs?: number;
  /** Consecutive failures before a cluster is Unavailable. @defaultValue 2 */
  failureThreshold?: number;
  log?: Logger;
}

/**
 * startHealthMonitor checks each cluster's /readyz on an interval (one process per cluster, by
 * lease). A cluster that fails repeatedly, or answers too slowly, becomes Unavailable: its
 * queue is paused, so its jobs wait instead of failing in a loop, and its objects say why (the
 * status store shows the availability on every record it reads; no record is rewritten).
 * The first good answer resumes the queue and re-enqueues the cluster's objects.
 */
export function startHealthMonitor(options: HealthMonitorOptions): { stop(): Promise<void>; checkNow(): Promise<void> } {
  const owner = `${process.pid}:${randomUUID().slice(0, 8)}`;
  const keys = options.statusStore.keys;
  const monitors = [...options.clusters].map(([name, connection]) => new ClusterMonitor(name, connection, owner, keys, options));
  const checkNow = async () => {
    await Promise.all(monitors.map((monitor) => monitor.check().catch((error: unknown) => options.log?.warn({ cluster: monitor.name, err: String(error) }, 'health check bookkeeping failed'))));
  };
  const timer = setInterval(() => void checkNow(), options.intervalMs ?? 5_000);
  timer.unref();
  void checkNow();
  return {
    checkNow,
    async stop() {
      clearInterval(timer);
      await Promise.all(monitors.map((monitor) => monitor.release()));
    },
  };
}

class ClusterMonitor {
  private failures = 0;
  private readonly lease: RedisLease;
  /** When the last probe answered, and the client's trouble count then. */
  private lastGood: { at: number; troubles: number } | undefined;
  private running: Promise<void> | undefined;

  constructor(readonly name: string, private readonly connection: ClusterConnection, owner: string, private readonly keys: RecordKeys, private readonly options: HealthMonitorOptions) {
    this.lease = new RedisLease(options.redis, keys.healthLease(name), owner, Math.max(3 * (options.intervalMs ?? 5_000), 1_000));
  }

  /** check probes the cluster, once at a time: a check asked for while one runs is that one. */
  check(): Promise<void> {
    this.running ??= this.checkOnce().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async checkOnce(): Promise<void> {
    if (!(await this.lease.acquire())) return;
    if (this.quiet()) return;
    const troubles = this.connection.client.troubles();
    const started = performance.now();
    const problem = await this.probe();
    this.lastGood = problem ? undefined : { at: Date.now(), troubles };
    const latencyMs = Math.round(performance.now() - started);
    const previous = await readClusterHealth(this.options.redis, this.keys, this.name);
    const now = new Date().toISOString();
    if (!problem) {
      this.failures = 0;
      await this.becomeAvailable(previous, latencyMs, now);
      return;
    }
    this.failures += 1;
    if (this.failures >= (this.options.failureThreshold ?? 2)) await this.becomeUnavailable(previous, problem, latencyMs, now);
  }

  /** quiet: the last probe answered, nothing failed since, and the quiet interval has not passed. */
  private quiet(): boolean {
    const quietMs = this.options.quietIntervalMs ?? this.options.intervalMs ?? 5_000;
    if (!this.lastGood || this.failures > 0) return false;
    return this.connection.client.troubles() === this.lastGood.troubles && Date.now() - this.lastGood.at < quietMs;
  }

  async release(): Promise<void> {
    await this.lease.release().catch(() => false);
  }

  private async probe(): Promise<string | undefined> {
    const timeoutMs = this.options.timeoutMs ?? 5_000;
    try {
      await this.connection.client.request({ method: 'GET', path: '/readyz', what: `health check of ${this.name}`, timeoutMs });
      return undefined;
    } catch (error) {
      return messageOf(error);
    }
  }

  private async becomeAvailable(previous: ClusterHealth, latencyMs: number, now: string): Promise<void> {
    const recovering = previous.state === 'Unavailable';
    if (recovering || previous.queuePaused) await this.options.queues.resume(this.name);
    await writeClusterHealth(this.options.redis, this.keys, { cluster: this.name, state: 'Available', since: previous.state === 'Available' ? previous.since : now, lastCheck: now, latencyMs, queuePaused: false });
    if (recovering) {
      await this.options.statusStore.announceCluster(this.name);
      this.options.log?.info({ cluster: this.name }, 'cluster is available again; queue resumed');
      await this.options.onRecovered(this.name);
    }
  }

  private async becomeUnavailable(previous: ClusterHealth, problem: string, latencyMs: number, now: string): Promise<void> {
    const message = `Cluster ${this.name} is unavailable: ${problem}. Its queue is paused until it answers again.`;
    await writeClusterHealth(this.options.redis, this.keys, { cluster: this.name, state: 'Unavailable', since: previous.state === 'Unavailable' ? previous.since : now, lastCheck: now, latencyMs, message, queuePaused: true });
    if (previous.state === 'Unavailable') return;
    await this.options.queues.pause(this.name);
    this.options.log?.warn({ cluster: this.name, problem }, 'cluster unavailable; queue paused');
    await this.options.statusStore.announceCluster(this.name);
  }
}
