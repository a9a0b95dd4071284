import type { ReconcileJob, RecordKeys, RedisClient } from '@tidemark/contracts';

/** CommitOrigin is when a change started: its commit time, or the webhook that announced it. */
export interface CommitOrigin {
  atMs: number;
  origin: 'commit' | 'webhook';
}

/** CommitClockOptions: the shared Redis and its key names. */
export interface CommitClockOptions {
  redis: RedisClient;
  keys: RecordKeys;
  /** How long a commit's clock is kept; an object not Ready by then is never timed. @defaultValue one day */
  keepSeconds?: number;
  /** How long a webhook's arrival waits for the poll it triggers. @defaultValue ten minutes */
  webhookKeepMs?: number;
}

// Object keys per script call: a push of 10,000 objects is a few calls, none of them huge.
const chunkSize = 1_000;

// KEYS[1] one commit's clock on one cluster; ARGV[1] its lifetime (s), ARGV[2] start (ms),
// ARGV[3] origin, ARGV[4..] the object keys the commit changed there. The first poll of a
// revision sets the start; a second one (a new leader polling it again) changes nothing.
const startScript = `
redis.call('HSETNX', KEYS[1], 'atMs', ARGV[2])
redis.call('HSETNX', KEYS[1], 'origin', ARGV[3])
for i = 4, #ARGV do redis.call('HSETNX', KEYS[1], 'o:' .. ARGV[i], 'pending') end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`;

// KEYS[1] the clock; ARGV[1] object key, ARGV[2] now (ms). Stops a pending object's clock once,
// whichever replica asks first, and returns {seconds, origin}; false when it was not pending.
const stopScript = `
local field = 'o:' .. ARGV[1]
if redis.call('HGET', KEYS[1], field) ~= 'pending' then return false end
local seconds = math.max(0, tonumber(ARGV[2]) - tonumber(redis.call('HGET', KEYS[1], 'atMs'))) / 1000
redis.call('HSET', KEYS[1], field, tostring(seconds))
return {tostring(seconds), redis.call('HGET', KEYS[1], 'origin')}
`;

/**
 * CommitClock measures commit-to-live across replicas: the poller records, per commit and
 * cluster, when the change started (commit time, or the webhook that announced it, whichever
 * replica received it) and which objects it changed; the first run on any replica that finds
 * one of them Ready at that revision stops its clock and records the seconds. All of it is in
 * Redis, so the replica that polls, the one that got the webhook and the one that applies may
 * differ, and a replica that dies loses nothing. Only objects a commit changed are timed, never
 * resyncs. Times come from the replicas' clocks, so they assume those are in sync (NTP).
 */
export class CommitClock {
  // The webhook arrival a source's running poll took; the same process polls and queues.
  private readonly inFlight = new Map<string, number>();
  private readonly keepSeconds: number;
  private readonly webhookKeepMs: number;

  constructor(private readonly options: CommitClockOptions) {
    this.keepSeconds = options.keepSeconds ?? 24 * 3600;
    this.webhookKeepMs = options.webhookKeepMs ?? 10 * 60_000;
    if (!(this.keepSeconds >= 1) || !(this.webhookKeepMs >= 1)) throw new Error('CommitClock: keepSeconds and webhookKeepMs must be positive numbers.');
  }

  /** webhookArrived notes a push announcement; the next poll of the source, on any replica, takes it. */
  async webhookArrived(source: string, atMs = Date.now()): Promise<void> {
    await this.options.redis.set(this.options.keys.webhookArrival(source), String(atMs), 'PX', this.webhookKeepMs, 'NX');
  }

  /** pollStarted moves a webhook's arrival to the poll it triggered, so a later poll cannot claim it. */
  async pollStarted(source: string): Promise<void> {
    this.inFlight.delete(source);
    const key = this.options.keys.webhookArrival(source);
    const [[, arrival] = []] = await this.options.redis.multi().get(key).del(key).exec() ?? [];
    const atMs = Number(arrival);
    if (typeof arrival === 'string' && Number.isFinite(atMs)) this.inFlight.set(source, atMs);
  }

  /**
   * changesQueued starts the clock of every object a commit changed, before its job is queued.
   * `commitTime` may be a reader: it is called only when no webhook announced the change (a read
   * of the commit from the Git cache, which a webhook's push need not wait for).
   */
  async changesQueued(source: string, jobs: readonly ReconcileJob[], commitTime: Date | undefined | (() => Promise<Date | undefined>)): Promise<void> {
    const webhook = this.inFlight.get(source);
    this.inFlight.delete(source);
    const committed = webhook === undefined && typeof commitTime === 'function' ? await commitTime() : commitTime;
    const origin: CommitOrigin | undefined = webhook !== undefined
      ? { atMs: webhook, origin: 'webhook' }
      : committed instanceof Date ? { atMs: committed.getTime(), origin: 'commit' } : undefined;
    if (!origin) return;
    const byClock = new Map<string, string[]>();
    for (const job of jobs) {
      if (job.reason !== 'git-change') continue;
      const key = this.options.keys.commitClock(source, job.revision, job.cluster);
      (byClock.get(key) ?? byClock.set(key, []).get(key)!).push(job.objectKey);
    }
    for (const [key, objectKeys] of byClock) {
      for (let start = 0; start < objectKeys.length; start += chunkSize) {
        await this.options.redis.eval(startScript, 1, key, String(this.keepSeconds), String(origin.atMs), origin.origin, ...objectKeys.slice(start, start + chunkSize));
      }
    }
  }

  /**
   * live stops the clock of an object found Ready at a revision, once across all replicas;
   * undefined when it was not running (a resync, another revision, or already stopped).
   */
  async live(run: { source: string; cluster: string; objectKey: string; revision: string }, atMs = Date.now()): Promise<{ seconds: number; origin: CommitOrigin['origin'] } | undefined> {
    const key = this.options.keys.commitClock(run.source, run.revision, run.cluster);
    const stopped = await this.options.redis.eval(stopScript, 1, key, run.objectKey, String(atMs)) as [string, string] | null;
    if (!stopped) return undefined;
    const [seconds, origin] = stopped;
    return { seconds: Number(seconds), origin: origin === 'webhook' ? 'webhook' : 'commit' };
  }
}
