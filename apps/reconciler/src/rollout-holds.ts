import { describeFreeze, readClusterFreeze, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { syncWindowOf, type SyncWindowsOptions } from '@tidemark/placement';

/** RolloutHoldsOptions are what holds a cluster's writes: the freeze records and the sync windows. */
export interface RolloutHoldsOptions extends SyncWindowsOptions {
  redis: RedisClient;
  keys: RecordKeys;
}

/**
 * rolloutHoldOf is the rollout driver's question "does anything hold this cluster's writes of this
 * source now, and why?": an operator's freeze first, then a sync window, each described as the
 * pipeline and the dashboard describe it. The same two checks stop a run before its first write
 * (freezeCheck, windowCheck), so a gate never times out waiting for writes they hold back.
 */
export function rolloutHoldOf(options: RolloutHoldsOptions): (cluster: string, source: string) => Promise<string | undefined> {
  const windowOf = options.windows.length > 0 ? syncWindowOf(options) : undefined;
  return async (cluster, source) => {
    const freeze = await readClusterFreeze(options.redis, options.keys, cluster);
    if (freeze) return describeFreeze(freeze);
    return windowOf?.(cluster, source)?.description;
  };
}
