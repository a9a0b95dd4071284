import { parseSyncWindowPass, syncWindowPassSeconds, type RecordKeys, type RedisClient, type SyncWindowPass } from '@tidemark/contracts';

// The writers of an operator's pass through a sync window (the dashboard leaves one, the pipeline
// takes it); its format and parser live in contracts.

/** writeSyncWindowPass records a pass for one object of a cluster, replacing one not yet taken. */
export async function writeSyncWindowPass(redis: RedisClient, keys: RecordKeys, cluster: string, objectKey: string, pass: SyncWindowPass): Promise<void> {
  await redis.set(keys.syncWindowPass(cluster, objectKey), JSON.stringify({ by: pass.by, at: pass.at }), 'EX', syncWindowPassSeconds);
}

/** takeSyncWindowPass reads and deletes an object's pass in one step, so two runs never both use it; undefined when there is none. */
export async function takeSyncWindowPass(redis: RedisClient, keys: RecordKeys, cluster: string, objectKey: string): Promise<SyncWindowPass | undefined> {
  return parseSyncWindowPass(await redis.getdel(keys.syncWindowPass(cluster, objectKey)));
}
