import { QueueUnavailableError } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { ActionResult } from '../api/schemas';
import type { QueueAccess } from './dashboard-data';
import { clusterInScope, inScope, type TokenScope } from '../auth/token-scope';

/**
 * Actions are what an operator may do; each checks the record exists first, and for a scoped
 * token that it is in the scope (outside it, the object is as unknown as one that does not exist).
 */
export class Actions {
  /** @param leavePass records an operator's pass through a sync window that allows manual syncs (writeSyncWindowPass); without it, none is left. */
  constructor(private readonly store: StatusStore, private readonly queues: QueueAccess, private readonly leavePass?: (cluster: string, objectKey: string, by: string) => Promise<void>) {}

  /**
   * reconcileNow queues a manual run at the revision last attempted, from the same source. Asked
   * by a person (`by`: the route's principal, the request is audited), it first leaves a pass, so
   * the run goes through a sync window that allows manual syncs.
   */
  async reconcileNow(cluster: string, objectKey: string, scope?: TokenScope, by?: string): Promise<ActionResult> {
    const status = await this.store.get(cluster, objectKey);
    if (!status || !inScope(scope, status)) throw notFound(`${objectKey} on cluster ${cluster}`);
    const revision = status.lastAttemptedRevision ?? status.lastAppliedRevision;
    if (!revision) throw new DashboardError(ErrorCode.NoRevision, 409, `${objectKey} has no revision yet; it is reconciled once its source is polled.`);
    if (by !== undefined && this.leavePass) await this.leavePass(cluster, objectKey, by);
    const result = await queueCall(() => this.queues.enqueue({ source: status.source, revision, cluster, objectKey, reason: 'manual' }));
    return { action: 'reconcile', cluster, objectKey, queue: result.status };
  }

  async suspend(cluster: string, objectKey: string, scope?: TokenScope): Promise<ActionResult> {
    await this.checkScope(cluster, objectKey, scope);
    const status = await this.store.setSuspended(cluster, objectKey, true);
    if (!status) throw notFound(`${objectKey} on cluster ${cluster}`);
    return { action: 'suspend', cluster, objectKey, suspended: true };
  }

  /** resume lifts the suspension and reconciles at once, so the object catches up with Git. */
  async resume(cluster: string, objectKey: string, scope?: TokenScope): Promise<ActionResult> {
    await this.checkScope(cluster, objectKey, scope);
    const status = await this.store.setSuspended(cluster, objectKey, false);
    if (!status) throw notFound(`${objectKey} on cluster ${cluster}`);
    const reconciled = await this.reconcileNow(cluster, objectKey, scope).catch((error: unknown) => {
      if (error instanceof DashboardError && error.code === ErrorCode.NoRevision) return undefined;
      throw error;
    });
    const result: ActionResult = { action: 'resume', cluster, objectKey, suspended: false };
    if (reconciled?.queue) result.queue = reconciled.queue;
    return result;
  }

  /** retry runs failed and stalled objects again: one object, or all of a cluster. */
  async retry(cluster: string, objectKey?: string, scope?: TokenScope): Promise<ActionResult> {
    if (scope && !objectKey) this.checkWholeCluster(cluster, scope);
    if (objectKey) await this.checkScope(cluster, objectKey, scope);
    const retried = await queueCall(() => this.queues.retryFailed(cluster, objectKey));
    const result: ActionResult = { action: 'retry', cluster, retried };
    if (objectKey) result.objectKey = objectKey;
    return result;
  }

  /** checkWholeCluster: only a scope limited to clusters alone covers all of one; it may act on its own clusters (others are not found). */
  private checkWholeCluster(cluster: string, scope: TokenScope): void {
    if (scope.sources.length > 0 || scope.namespaces.length > 0) throw new DashboardError(ErrorCode.Forbidden, 403, 'This token is limited to some sources or namespaces: it may retry one of its objects, not a whole cluster.');
    if (!clusterInScope(scope, cluster)) throw notFound(`cluster ${cluster}`);
  }

  /** checkScope refuses an object outside a scoped token's sources, namespaces and clusters, as not found. */
  private async checkScope(cluster: string, objectKey: string, scope: TokenScope | undefined): Promise<void> {
    if (!scope) return;
    const status = await this.store.get(cluster, objectKey);
    if (!status || !inScope(scope, status)) throw notFound(`${objectKey} on cluster ${cluster}`);
  }
}

async function queueCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof QueueUnavailableError) throw new DashboardError(ErrorCode.QueueUnavailable, 503, error.message, { cause: error });
    throw error;
  }
}
