import { withReason, type ReconcileJob } from '@tidemark/contracts';
import type { ResyncSchedule } from './resync-schedule';
import { spreadDue } from './spread-due';

/** ResyncSweepOptions: how a worker process answers its clusters' routine look-agains. */
export interface ResyncSweepOptions {
  /**
   * unchanged says, for each job, whether a run would find what the last full run left (so none
   * is needed). It answers in one batch; false whenever it cannot tell.
   */
  unchanged(jobs: readonly ReconcileJob[]): Promise<boolean[]>;
  /** enqueue asks for a run (reason `resync`) of an object that may have changed. */
  enqueue(job: ReconcileJob): Promise<unknown>;
  /** Told after each batch how many objects were unchanged and how many got a job. @defaultValue none */
  onSwept?(cluster: string, unchanged: number, changed: number): void;
  /** How long until an unchanged object is looked at again. */
  intervalMs: number;
  /** How often each cluster's schedule is looked at. @defaultValue 1_000 */
  sweepMs?: number;
  /** Objects claimed per batch. @defaultValue 500 */
  batchSize?: number;
  /** How long a claimed object stays out of other sweepers' reach (a sweeper that dies gives it back then). @defaultValue 60_000 */
  claimMs?: number;
}

/**
 * ResyncSweeper answers one cluster's due look-agains in batches: an unchanged object is only
 * rescheduled (no BullMQ job, no run), any other gets a `resync` job, whose run puts it back in
 * the schedule when it ends Ready. Several processes may sweep one cluster: claims are atomic.
 * Construction only checks options; `start` and `stop` are explicit.
 */
export class ResyncSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly cluster: string, private readonly schedule: ResyncSchedule, private readonly options: ResyncSweepOptions, private readonly onError: (error: Error) => void) {
    if (!(options.intervalMs >= 1)) throw new Error(`ResyncSweeper: intervalMs must be a positive number of ms; got ${options.intervalMs}.`);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.next(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** sweepOnce answers one batch of due objects; it returns how many it claimed. */
  async sweepOnce(now = Date.now()): Promise<number> {
    const claimMs = this.options.claimMs ?? 60_000;
    const until = now + claimMs;
    const claimed = await this.schedule.claim(now, until, this.options.batchSize ?? 500);
    const jobs = claimed.flatMap(({ job }) => (job && job.reason !== 'git-removed' ? [withReason(job, 'resync')] : []));
    const verdicts = jobs.length > 0 ? await this.options.unchanged(jobs) : [];
    const unchanged = jobs.filter((_, index) => verdicts[index] === true);
    const rescheduledAt = Date.now();
    await this.schedule.reschedule(unchanged.map((job) => job.objectKey), (objectKey) => spreadDue(this.cluster, objectKey, rescheduledAt, this.options.intervalMs));
    const changed = jobs.filter((_, index) => verdicts[index] !== true);
    for (const job of changed) await this.options.enqueue(job);
    // Objects without a slot (or removed from Git) have nothing to look at; the ones enqueued leave until their run ends.
    const looked = new Set(unchanged.map((job) => job.objectKey));
    await this.schedule.dropIfClaimed(claimed.filter(({ objectKey }) => !looked.has(objectKey)).map(({ objectKey }) => objectKey), until);
    if (jobs.length > 0) this.options.onSwept?.(this.cluster, unchanged.length, changed.length);
    return claimed.length;
  }

  private next(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweepOnce().then(
        (claimed) => this.next(claimed >= (this.options.batchSize ?? 500) ? 0 : this.options.sweepMs ?? 1_000),
        (error: unknown) => {
          this.onError(error instanceof Error ? error : new Error(String(error)));
          this.next(this.options.sweepMs ?? 1_000);
        },
      );
    }, delayMs);
    this.timer.unref();
  }
}
