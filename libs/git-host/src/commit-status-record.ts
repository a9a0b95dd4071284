import type { RecordKeys, RedisClient } from '@tidemark/contracts';

/** ObjectProgress is where one object a commit changed stands on a cluster. */
export type ObjectProgress = 'pending' | 'done' | 'failed';

/** CommitOnCluster names one commit of a source on one cluster: what one set of statuses is about. */
export interface CommitOnCluster {
  source: string;
  revision: string;
  cluster: string;
}

/** StatusClaim is a state this replica has claimed to post (no other replica will), with what it says. */
export interface StatusClaim {
  state: 'pending' | 'success' | 'failure' | 'superseded';
  /** Objects the commit changed on the cluster. */
  objects: number;
  /** The first failure's reason, for `failure`. */
  reason?: string;
  /** The newer commit that overtook this one, for `superseded`. */
  supersededBy?: string;
}

/** SupersededCommit is an older commit whose `superseded` status this replica has claimed. */
export interface SupersededCommit {
  revision: string;
  claim: StatusClaim;
}

// A week, like the revision-live records: a commit nobody finishes is forgotten, not kept.
const recordSeconds = 7 * 24 * 3600;

// KEYS[1] the record, KEYS[2] the cluster's open commits; ARGV[1] their lifetime, ARGV[2] the revision;
// ARGV[3..] the object keys the commit changed on the cluster. Adds each object once (a second poll
// or replica adds none), then claims `pending` once and lists the commit as open, scored by the
// server's clock in microseconds (what came before it may be superseded by it).
const pickedUpScript = `
local added = 0
for i = 3, #ARGV do
  if redis.call('HSETNX', KEYS[1], 'o:' .. ARGV[i], 'pending') == 1 then added = added + 1 end
end
redis.call('HINCRBY', KEYS[1], 'n:pending', added)
local total = redis.call('HINCRBY', KEYS[1], 'n:total', added)
redis.call('EXPIRE', KEYS[1], ARGV[1])
local claimed = redis.call('HSETNX', KEYS[1], 'posted:pending', '1')
if claimed == 1 then
  local now = redis.call('TIME')
  redis.call('ZADD', KEYS[2], 'NX', tonumber(now[1]) * 1000000 + tonumber(now[2]), ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return {claimed, total}
`;

// KEYS[1] an older commit's record, KEYS[2] the cluster's open commits; ARGV[1] the older revision,
// ARGV[2..] the object keys a newer commit changed on the cluster. The older commit is superseded,
// once, if it has no final state yet and one of its pending objects is among them: that object's job
// now runs at the newer revision (the queue keeps the latest), so the older record would never end.
// A commit that ended, or whose record expired, leaves the open set.
const supersedeScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) return false end
for _, state in ipairs({'success', 'failure', 'superseded'}) do
  if redis.call('HEXISTS', KEYS[1], 'posted:' .. state) == 1 then redis.call('ZREM', KEYS[2], ARGV[1]) return false end
end
local overtaken = false
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], 'o:' .. ARGV[i]) == 'pending' then overtaken = true break end
end
if not overtaken then return false end
redis.call('HSET', KEYS[1], 'posted:superseded', '1')
redis.call('ZREM', KEYS[2], ARGV[1])
return tonumber(redis.call('HGET', KEYS[1], 'n:total') or '0')
`;

// KEYS[1] the record, KEYS[2] the cluster's open commits; ARGV[1] object key, ARGV[2] its progress,
// ARGV[3] a failure's reason, ARGV[4] the revision. Moves one object, then claims at most one state:
// failure at the first failed object, success when none is pending or failed. Each state is claimed
// once per record, across replicas; a superseded commit claims nothing more.
const ranScript = `
local field = 'o:' .. ARGV[1]
local old = redis.call('HGET', KEYS[1], field)
if not old then return false end
if redis.call('HEXISTS', KEYS[1], 'posted:superseded') == 1 then return false end
if old ~= ARGV[2] then
  redis.call('HSET', KEYS[1], field, ARGV[2])
  if old ~= 'done' then redis.call('HINCRBY', KEYS[1], 'n:' .. old, -1) end
  if ARGV[2] ~= 'done' then redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[2], 1) end
  if ARGV[2] == 'failed' then redis.call('HSETNX', KEYS[1], 'reason', ARGV[3]) end
end
local pending = tonumber(redis.call('HGET', KEYS[1], 'n:pending') or '0')
local failed = tonumber(redis.call('HGET', KEYS[1], 'n:failed') or '0')
local total = tonumber(redis.call('HGET', KEYS[1], 'n:total') or '0')
if failed > 0 and redis.call('HEXISTS', KEYS[1], 'posted:success') == 0 and redis.call('HSETNX', KEYS[1], 'posted:failure', '1') == 1 then
  redis.call('ZREM', KEYS[2], ARGV[4])
  return {'failure', total, redis.call('HGET', KEYS[1], 'reason') or ''}
end
if pending == 0 and failed == 0 and redis.call('HSETNX', KEYS[1], 'posted:success', '1') == 1 then
  redis.call('ZREM', KEYS[2], ARGV[4])
  return {'success', total, ''}
end
return false
`;

/**
 * CommitStatusRecord keeps, in Redis, how far each commit has got on each cluster, so that every
 * replica agrees on one status per state per cluster per commit: the poller records what a commit
 * changed there (`pickedUp`), each worker what its run made of one object (`ran`), and whoever
 * moves the record to a new state claims it and posts it. It holds object keys and reasons, never
 * a token or an object's body.
 */
export class CommitStatusRecord {
  constructor(private readonly redis: RedisClient, private readonly keys: RecordKeys) {}

  /** pickedUp records the objects a commit changed on a cluster; it returns the `pending` claim the first time. */
  async pickedUp(commit: CommitOnCluster, objectKeys: readonly string[]): Promise<StatusClaim | undefined> {
    if (objectKeys.length === 0) return undefined;
    const [claimed, total] = await this.redis.eval(pickedUpScript, 2, this.keyOf(commit), this.openOf(commit), String(recordSeconds), commit.revision, ...objectKeys) as [number, number];
    return claimed === 1 ? { state: 'pending', objects: total } : undefined;
  }

  /**
   * supersede claims `superseded` for each commit picked up on the cluster before `newer` that has no
   * final state and has a pending object among `objectKeys` (what `newer` changed there): its job now
   * runs at the newer revision, so the older commit would stay pending forever. Each older commit is
   * claimed once across replicas; commits whose other objects may still finish are left alone.
   */
  async supersede(newer: CommitOnCluster, objectKeys: readonly string[]): Promise<SupersededCommit[]> {
    if (objectKeys.length === 0) return [];
    const open = this.openOf(newer);
    const since = await this.redis.zscore(open, newer.revision);
    if (since === null) return [];
    const older = await this.redis.zrangebyscore(open, '-inf', `(${since}`);
    const superseded: SupersededCommit[] = [];
    for (const revision of older) {
      const commit = { ...newer, revision };
      const objects = await this.redis.eval(supersedeScript, 2, this.keyOf(commit), open, revision, ...objectKeys) as number | null;
      if (objects !== null) superseded.push({ revision, claim: { state: 'superseded', objects, supersededBy: newer.revision } });
    }
    return superseded;
  }

  /** finished tells whether a final state (success, failure, superseded) has been claimed: a pending status not yet sent is then left out. */
  async finished(commit: CommitOnCluster): Promise<boolean> {
    const [success, failure, superseded] = await this.redis.hmget(this.keyOf(commit), 'posted:success', 'posted:failure', 'posted:superseded');
    return Boolean(success ?? failure ?? superseded);
  }

  /**
   * ran records one run's outcome for an object of a tracked commit, and returns a claim when it
   * moved the commit to failure or success on that cluster. Runs of untracked commits or objects
   * (resyncs, wake-ups of other revisions) change nothing.
   */
  async ran(commit: CommitOnCluster, objectKey: string, progress: ObjectProgress, reason = ''): Promise<StatusClaim | undefined> {
    const claim = await this.redis.eval(ranScript, 2, this.keyOf(commit), this.openOf(commit), objectKey, progress, reason.slice(0, 500), commit.revision) as [string, number, string] | null;
    if (!claim) return undefined;
    const [state, objects, why] = claim;
    return state === 'failure' ? { state, objects, reason: why } : { state: 'success', objects };
  }

  private keyOf(commit: CommitOnCluster): string {
    return this.keys.commitStatus(commit.source, commit.revision, commit.cluster);
  }

  private openOf(commit: CommitOnCluster): string {
    return this.keys.commitStatusOpen(commit.source, commit.cluster);
  }
}
