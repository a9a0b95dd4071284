import { Worker, type Job } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

/**
 * DrainableWorker is a BullMQ Worker that really stops taking jobs when told. BullMQ's fetch
 * loop, once blocked waiting for a job, moves the next job to active when it wakes without
 * checking whether the worker was paused meanwhile; during a drain that would start new work,
 * or take back the very job we just handed back.
 */
export class DrainableWorker<DataType, ResultType> extends Worker<DataType, ResultType> {
  private draining: Redis | Cluster | undefined;

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
}
