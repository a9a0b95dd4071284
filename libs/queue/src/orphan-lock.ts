import type { Cluster, Redis } from 'ioredis';
import { LuaScript } from './lua-script';

/**
 * A job's lock can run out while Redis Cluster has no primary for the queue's slot: the worker
 * cannot extend it then, and a failover that takes longer than the lock's time left (on a loaded
 * machine, or while a replica waits for its election) ends with the job still in the active list
 * and no lock. BullMQ then refuses the job's completion ("Missing lock"), leaves it in the active
 * list, where it counts against the queue's global concurrency, until the stalled check moves it
 * back to wait two rounds later and it runs a second time. With a worker's whole concurrency in
 * flight at the failover, every worker of the queue took no job for that while (test/queue/redis-topologies).
 *
 * takeBack sets the lock again, with the worker's own token, only if the job is still in the
 * active list and nobody holds its lock: no stalled check has handed it on, no other worker has
 * it. Then the completion is tried again. Otherwise nothing changes and the job takes BullMQ's way.
 */
const takeBack = new LuaScript(`
local lock = redis.call('GET', KEYS[2])
if lock == ARGV[2] then return 1 end
if lock then return 0 end
if not redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`);

/** OrphanLock is where a worker's jobs and their locks live, to take a lock back (above). */
export interface OrphanLock {
  redis: Redis | Cluster;
  activeKey: string;
  lockKey(jobId: string): string;
  lockDurationMs: number;
}

/** isMissingLock says whether BullMQ refused a job's move because its lock was gone. */
export function isMissingLock(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Missing lock for job ');
}

/** takeBackLock says whether the job's lock is (again) the worker's `token`. */
export async function takeBackLock(orphan: OrphanLock, jobId: string, token: string): Promise<boolean> {
  return (await takeBack.run(orphan.redis, [orphan.activeKey, orphan.lockKey(jobId)], [jobId, token, orphan.lockDurationMs])) === 1;
}
