import { readClusterFreeze, type ClusterFreeze, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { QueueUnavailableError } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { Principal } from '../auth/principal';
import type { QueueAccess } from './dashboard-data';

export interface ClusterFreezesOptions {
  redis: RedisClient;
  store: StatusStore;
  queues: QueueAccess;
  /** The clusters the dashboard knows (config and records): only these can be frozen. */
  clusterNames(): string[];
}

/** FreezeResult is what a freeze or an unfreeze did. */
export interface FreezeResult {
  action: 'freeze' | 'unfreeze';
  cluster: string;
  frozen: boolean;
  freeze?: ClusterFreeze;
  /** Objects of the cluster asked to reconcile again (unfreeze). */
  woken?: number;
}

/**
 * ClusterFreezes is the one writer of the cluster-freeze record: an operator's "no writes to this
 * cluster until I lift it". A freeze is cluster-wide, so a token limited to some sources may not
 * set or lift one. Lifting it wakes every object of the cluster, so each converges within seconds
 * instead of at its next look (the pipeline re-checks a freeze only every minute by itself).
 */
export class ClusterFreezes {
  constructor(private readonly options: ClusterFreezesOptions) {}

  async freeze(cluster: string, reason: string, principal: Principal | undefined): Promise<FreezeResult> {
    this.check(cluster, principal);
    const why = reason.trim();
    if (why.length === 0) throw new DashboardError(ErrorCode.BadRequest, 400, 'A freeze needs a reason: say why nothing may be written to the cluster, for whoever lifts it.');
    const freeze: ClusterFreeze = { cluster, by: principal?.name ?? 'unknown', reason: why, since: new Date().toISOString() };
    await writeClusterFreeze(this.options.redis, this.options.store.keys, freeze);
    return { action: 'freeze', cluster, frozen: true, freeze };
  }

  async unfreeze(cluster: string, principal: Principal | undefined): Promise<FreezeResult> {
    this.check(cluster, principal);
    await liftClusterFreeze(this.options.redis, this.options.store.keys, cluster);
    try {
      return { action: 'unfreeze', cluster, frozen: false, woken: await this.wake(cluster) };
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      throw new DashboardError(ErrorCode.QueueUnavailable, 503, `The freeze of cluster ${cluster} is lifted, but its objects could not be woken (${error.message}); they converge at their next look, within a minute.`, { cause: error });
    }
  }

  /** freezeOf is a cluster's freeze, undefined when it is open. */
  async freezeOf(cluster: string): Promise<ClusterFreeze | undefined> {
    return readClusterFreeze(this.options.redis, this.options.store.keys, cluster);
  }

  /** wake asks every object of the cluster to reconcile at the revision it last attempted (a push during the freeze included). */
  private async wake(cluster: string): Promise<number> {
    let woken = 0;
    for (const status of await this.options.store.list(cluster)) {
      const revision = status.lastAttemptedRevision ?? status.lastAppliedRevision;
      if (!revision) continue;
      await this.options.queues.enqueue({ source: status.source, revision, cluster, objectKey: status.objectKey, reason: 'manual' });
      woken += 1;
    }
    return woken;
  }

  private check(cluster: string, principal: Principal | undefined): void {
    if (principal?.scope) throw new DashboardError(ErrorCode.Forbidden, 403, 'This token is limited to some sources, namespaces or clusters: it may not freeze or unfreeze a whole cluster.');
    if (!this.options.clusterNames().includes(cluster)) throw notFound(`cluster ${cluster}`);
  }
}

/** writeClusterFreeze sets (or replaces) a cluster's freeze; the format and parser live in contracts. */
async function writeClusterFreeze(redis: RedisClient, keys: RecordKeys, freeze: ClusterFreeze): Promise<void> {
  const { by, reason, since } = freeze;
  await redis.set(keys.clusterFreeze(freeze.cluster), JSON.stringify({ by, reason, since }));
}

/** liftClusterFreeze removes a cluster's freeze. */
async function liftClusterFreeze(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<void> {
  await redis.del(keys.clusterFreeze(cluster));
}
