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

/** recordsRebuild wires rebuildAfterLoss to the clusters' main connections (Tidemark's own field manager). */
export function recordsRebuild(deps: { redis: RedisClient; statusStore: StatusStore; connections: ReadonlyMap<string, ClusterConnection>; log: Logger }): RecordsRebuild {
  const lost = new RecordsLost(deps.redis, deps.statusStore.keys);
  const connection = (cluster: string) => {
    const found = deps.connections.get(cluster);
    if (!found) throw new Error(`cluster ${cluster} has no connection`);
    return found;
  };
  return {
    async afterSchemaClaim(previous) {
      if (previous !== 0) return;
      deps.log.warn({}, 'Redis holds no schema claim (a new or wiped Redis): each source rebuilds its records from the owner labels in its clusters at its next poll');
      await lost.mark(new Date());
    },
    async beforeRoute(result) {
      const written = await rebuildAfterLoss({
        source: result.source, revision: result.revision, clusters: [...deps.connections.keys()],
        statusStore: deps.statusStore, lost, log: deps.log,
        listLabelled: (cluster) => listOwnerLabelled(connection(cluster)),
        fieldManagerOf: (cluster) => connection(cluster).fieldManager,
      });
      if (written === 0 || !result.previousRevision) return result;
      const { previousRevision: _routedAgain, ...everything } = result;
      return everything;
    },
  };
}
