import { Worker, type Job, type JobJson } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { isMissingLock, takeBackLock, type OrphanLock } from './orphan-lock';

/** The moves of a job that need its lock, and that a lock lost in a failover would refuse. */
const lockedMoves = ['moveToCompleted', 'moveToFailed', 'moveToDelayed'] as const;

/**
 * DrainableWorker is a BullMQ Worker that really stops taking jobs when told. BullMQ's fetch
 * loop, once blocked waiting for a job, moves the next job to active when it wakes without
 * checking whether the worker was paused meanwhile; during a drain that would start new work,
 * or take back the very job we just handed back.
 *
 * It also finishes a job whose lock ran out while Redis had no primary (orphan-lock.ts): a
 * move refused for a missing lock is tried once more after the lock is taken back.
 */
export class DrainableWorker<DataType, ResultType> extends Worker<DataType, ResultType> {
  private draining: Redis | Cluster | undefined;
  private orphanLock: OrphanLock | undefined;

  /** keepLocks: `redis` is the worker's own connection, where locks lost in a failover are taken back. */
  keepLocks(redis: Redis | Cluster, lockDurationMs: number): void {
    this.orphanLock = { redis, activeKey: this.keys.active!, lockKey: (jobId) => `${this.toKey(jobId)}:lock`, lockDurationMs };
  }

  /** stopTaking: from now on no job starts in this worker; running ones carry on. */
  async stopTaking(redis: Redis | Cluster): Promise<void> {
    this.draining = redis;
    await this.pause(true);
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job<DataType, ResultType>> {
    if (this.draining) {
      // We consumed the queue's wake-up marker: put it back so another process takes the job.
      const marker = this.keys.marker;
      if (marker) await this.draining.zadd(marker, 0, '0');
      // BullMQ's loop treats "no job" as undefined; its declared return type does not say so.
      return undefined as unknown as Job<DataType, ResultType>;
    }
    return super.moveToActive(token, name);
  }

  protected override createJob(data: JobJson, jobId: string): Job<DataType, ResultType> {
    const job = super.createJob(data, jobId);
    const orphan = this.orphanLock;
    if (!orphan) return job;
    for (const move of lockedMoves) {
      const original = job[move].bind(job) as (...args: unknown[]) => Promise<unknown>;
      (job as unknown as Record<string, unknown>)[move] = async (...args: unknown[]) => {
        try {
          return await original(...args);
        } catch (error) {
          // Each move takes the token as its second argument.
          const token = args[1];
          if (!isMissingLock(error) || typeof token !== 'string' || !job.id || !(await takeBackLock(orphan, job.id, token).catch(() => false))) throw error;
          return original(...args);
        }
      };
    }
    return job;
  }
}
