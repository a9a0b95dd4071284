import type { Cluster, Redis } from 'ioredis';
import type { ReconcileJob } from '@tidemark/contracts';
import { LuaScript } from './lua-script';
import { parseReconcileJob } from './object-records';
import type { ObjectStateKeys } from './queue-names';

// KEYS[1] the schedule (objectKey → due, ms), KEYS[2] the latest-revision slots; ARGV[1] now,
// ARGV[2] claimed until, ARGV[3] how many. Takes the due objects out of every other sweeper's
// reach until ARGV[2] (a sweeper that dies gives them back then) and returns them with their slots.
const claimDue = new LuaScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, key in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], key)
  out[#out + 1] = key
  out[#out + 1] = redis.call('HGET', KEYS[2], key) or ''
end
return out
`);

// KEYS[1] the schedule; ARGV[1] the claim's score, ARGV[2..] object keys. Removes only objects still
// at that claim: a run that rescheduled one meanwhile keeps its entry.
const dropIfClaimed = new LuaScript(`
local dropped = 0
for i = 2, #ARGV do
  if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i])) == tonumber(ARGV[1]) then dropped = dropped + redis.call('ZREM', KEYS[1], ARGV[i]) end
end
return dropped
`);

/** ClaimedObject is one due object and the job its slot holds (undefined: no slot, nothing to look at). */
export interface ClaimedObject {
  objectKey: string;
  job: ReconcileJob | undefined;
}

/**
 * ResyncSchedule is one cluster's schedule of routine look-agains: objects whose last run ended
 * Ready wait here, by due time, instead of as delayed BullMQ jobs, so that a sweeper can answer
 * the unchanged ones in batches without a job (ResyncSweeper). Runs add and remove their object in
 * the pipelines ObjectState already sends.
 */
export class ResyncSchedule {
  constructor(private readonly client: Redis | Cluster, private readonly keys: ObjectStateKeys) {}

  /** claim takes up to `limit` objects due at `now`, held from other sweepers until `until`. */
  async claim(now: number, until: number, limit: number): Promise<ClaimedObject[]> {
    const reply = (await claimDue.run(this.client, [this.keys.resyncDue, this.keys.latest], [now, until, limit])) as string[];
    const claimed: ClaimedObject[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2) {
      claimed.push({ objectKey: reply[index]!, job: parseReconcileJob(reply[index + 1] || null) });
    }
    return claimed;
  }

  /** reschedule makes objects due again at `due` (one time for all, or each object's own). */
  async reschedule(objectKeys: readonly string[], due: number | ((objectKey: string) => number)): Promise<void> {
    if (objectKeys.length === 0) return;
    const dueOf = typeof due === 'number' ? () => due : due;
    await this.client.zadd(this.keys.resyncDue, ...objectKeys.flatMap((key) => [dueOf(key), key]));
  }

  /** dropIfClaimed forgets objects still at the claim `until` (a job now looks at them; its run schedules them again). */
  async dropIfClaimed(objectKeys: readonly string[], until: number): Promise<void> {
    if (objectKeys.length === 0) return;
    await dropIfClaimed.run(this.client, [this.keys.resyncDue], [until, ...objectKeys]);
  }
}
