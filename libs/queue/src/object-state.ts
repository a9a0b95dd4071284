import type { Cluster, Redis } from 'ioredis';
import { jobFlags, type ReconcileJob } from '@tidemark/contracts';
import { LuaScript } from './lua-script';
import { parseFailureRecord, parseReconcileJob, type FailureRecord, type StalledMarker } from './object-records';
import type { ObjectStateKeys } from './queue-names';

/**
 * The enqueue half of the "latest revision" slot. The stall marker is a cache of the pipeline's
 * verdict, written only from a run's outcome (a terminal failure, or a run that found the object
 * still stalled) and cleared by a successful one. A manual job clears it (a person asked for a
 * retry, which the pipeline honours too); any other job at the revision the cache says stalled is
 * answered "stalled" without a job. Then it writes the slot. `watch` and `drift` jobs say "look
 * again", not "here is a new revision", so they never overwrite a slot a Git job wrote.
 * Returns [code, previous]: 0 stalled, 1 written, 2 kept.
 */
const writeLatest = new LuaScript(`
if ARGV[5] == '1' then redis.call('HDEL', KEYS[1], ARGV[1]) end
local marker = redis.call('HGET', KEYS[1], ARGV[1])
if marker then
  local ok, decoded = pcall(cjson.decode, marker)
  if ok and type(decoded) == 'table' and decoded['revision'] == ARGV[3] then return {0, ''} end
end
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous and ARGV[4] == 'keep' then return {2, previous} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {1, previous or ''}
`);

/** deleteIfUnchanged removes the slot only if nobody wrote a newer job since we read it. */
const deleteIfUnchanged = new LuaScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`);

const recentSamples = 1000;

/** newlyRemoved: a removal where the slot held a job to apply (the object left its source at this revision). */
export type SlotWrite = { kind: 'stalled' } | { kind: 'written'; revisionChanged: boolean; newlyRemoved: boolean } | { kind: 'kept' };

/** RunState is what a worker reads before running a job. */
export interface RunState {
  latest: ReconcileJob | undefined;
  latestRaw: string | null;
  failure: FailureRecord | undefined;
}

/** ObjectState reads and writes Tidemark's per-object records of one cluster's queue. */
export class ObjectState {
  constructor(private readonly client: Redis | Cluster, readonly keys: ObjectStateKeys) {}

  async writeLatest(job: ReconcileJob): Promise<SlotWrite> {
    // A wake-up (a watch event, drift) proposes no revision of its own: it keeps the newest one.
    const keep = job.reason === 'watch' || job.reason === 'drift' ? 'keep' : 'set';
    // A retry clears the stalled marker before it is checked.
    const retry = jobFlags(job).retry ? '1' : '0';
    const reply = (await writeLatest.run(this.client, [this.keys.stalled, this.keys.latest],
      [job.objectKey, JSON.stringify(job), job.revision, keep, retry])) as [number, string];
    const [code, previousRaw] = reply;
    if (code === 0) return { kind: 'stalled' };
    if (code === 2) return { kind: 'kept' };
    const previous = parseReconcileJob(previousRaw);
    return { kind: 'written', revisionChanged: previous?.revision !== job.revision, newlyRemoved: job.reason === 'git-removed' && previous?.reason !== 'git-removed' };
  }

  /**
   * nudge records a look-again request. BullMQ parks a job added while the object's job is active
   * until that job completes, so a run that ends in a delay would sit on it: the run checks this
   * mark instead (latestAndNudge), and the run that starts next clears it (readForRun).
   */
  async nudge(objectKey: string): Promise<void> {
    await this.client.hset(this.keys.nudged, objectKey, Date.now());
  }

  /** latestAndNudge reads the slot's newest revision and takes (clears) a look-again mark, in one round trip, for a run that just moved its job to delayed. */
  async latestAndNudge(objectKey: string): Promise<{ latest: string | undefined; nudged: boolean }> {
    const replies = await this.client.pipeline().hget(this.keys.latest, objectKey).hdel(this.keys.nudged, objectKey).exec();
    const [[latestError, latest] = [], [nudgeError, nudged] = []] = replies ?? [];
    if (latestError || nudgeError) throw latestError ?? nudgeError;
    return { latest: parseReconcileJob(typeof latest === 'string' ? latest : null)?.revision, nudged: typeof nudged === 'number' && nudged > 0 };
  }

  async readForRun(objectKey: string): Promise<RunState> {
    const replies = await this.client.pipeline()
      .hget(this.keys.latest, objectKey)
      .hget(this.keys.failures, objectKey)
      // This run answers every look-again asked before it started.
      .hdel(this.keys.nudged, objectKey)
      .exec();
    const value = (index: number): string | null => {
      const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
      if (error) throw error;
      return typeof result === 'string' ? result : null;
    };
    const latestRaw = value(0);
    return {
      latest: parseReconcileJob(latestRaw),
      latestRaw,
      failure: parseFailureRecord(value(1)),
    };
  }

  /**
   * recordSuccess clears the object's failure records and counts the run; with `resyncAt` the object
   * waits in the resync schedule until then (its job completes), else it leaves the schedule.
   */
  async recordSuccess(objectKey: string, processingMs: number, waitMs: number | undefined, resyncAt?: number): Promise<void> {
    const pipeline = this.client.pipeline()
      .hdel(this.keys.stalled, objectKey)
      .hdel(this.keys.failures, objectKey);
    if (resyncAt === undefined) pipeline.zrem(this.keys.resyncDue, objectKey);
    else pipeline.zadd(this.keys.resyncDue, Math.round(resyncAt), objectKey);
    this.addTimes(pipeline, processingMs, waitMs);
    await pipeline.exec();
  }

  /**
   * recordFailure stores the failure and counts the failed run; `stalled`, given only for a run
   * whose handler failed terminally, goes into the stall cache.
   */
  async recordFailure(record: FailureRecord, processingMs: number, waitMs: number | undefined, stalled?: StalledMarker): Promise<void> {
    // A failing object is looked at by its own retries, not by the resync schedule.
    const pipeline = this.client.pipeline().hset(this.keys.failures, record.objectKey, JSON.stringify(record)).incr(this.keys.failedRuns).zrem(this.keys.resyncDue, record.objectKey);
    if (stalled) pipeline.hset(this.keys.stalled, record.objectKey, JSON.stringify(stalled));
    this.addTimes(pipeline, processingMs, waitMs);
    await pipeline.exec();
  }

  /** recordStillStalled: the handler found the object still stalled at this revision; the cache says so again. */
  async recordStillStalled(objectKey: string, stalled: StalledMarker, processingMs: number, waitMs: number | undefined): Promise<void> {
    const pipeline = this.client.pipeline().hset(this.keys.stalled, objectKey, JSON.stringify(stalled));
    this.addTimes(pipeline, processingMs, waitMs);
    await pipeline.exec();
  }

  async recordTimes(processingMs: number | undefined, waitMs: number | undefined): Promise<void> {
    const pipeline = this.client.pipeline();
    this.addTimes(pipeline, processingMs, waitMs);
    await pipeline.exec();
  }

  /**
   * scheduled says, per object, whether the resync schedule already looks at it: it waits there and
   * its slot names a job (what a sweep needs to look). One round trip for the batch.
   */
  async scheduled(objectKeys: readonly string[]): Promise<boolean[]> {
    if (objectKeys.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const key of objectKeys) pipeline.zscore(this.keys.resyncDue, key).hexists(this.keys.latest, key);
    const replies = (await pipeline.exec()) ?? [];
    return objectKeys.map((_, index) => {
      const [[dueError, due] = [], [slotError, slot] = []] = [replies[2 * index], replies[2 * index + 1]];
      if (dueError || slotError) throw dueError ?? slotError;
      return due !== null && due !== undefined && slot === 1;
    });
  }

  async deleteLatestIfUnchanged(objectKey: string, raw: string): Promise<void> {
    await deleteIfUnchanged.run(this.client, [this.keys.latest], [objectKey, raw]);
  }

  private addTimes(pipeline: ReturnType<Redis['pipeline']>, processingMs: number | undefined, waitMs: number | undefined): void {
    if (processingMs !== undefined) pipeline.lpush(this.keys.processingTimes, Math.round(processingMs)).ltrim(this.keys.processingTimes, 0, recentSamples - 1);
    if (waitMs !== undefined) pipeline.lpush(this.keys.waitTimes, Math.round(waitMs)).ltrim(this.keys.waitTimes, 0, recentSamples - 1);
  }
}
