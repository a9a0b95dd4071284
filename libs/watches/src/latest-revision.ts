import { readSourceStatus, revisionFor, type GitOwner } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import type { RedisClient } from '@tidemark/contracts';

/** latestRevision reads what revisionFor needs (the source's record, else the object's) and asks it. */
export async function latestRevision(options: { redis: RedisClient; statusStore: StatusStore }, cluster: string, owner: GitOwner): Promise<string | undefined> {
  const source = await readSourceStatus(options.redis, options.statusStore.keys, owner.source);
  const fromSource = revisionFor(source);
  if (fromSource) return fromSource;
  return revisionFor(source, await options.statusStore.get(cluster, owner.objectKey), owner.source);
}
