import { JobAbortedError, type AbortCause } from './errors/job-aborted-error';

interface Lease {
  controller: AbortController;
  renewedAt: number;
}

/**
 * LeaseWatch gives each running job an AbortSignal that fires when this worker may no longer
 * own the job: BullMQ failed to renew its lock, or no renewal succeeded for three quarters of
 * a lock duration (Redis unreachable: the lock is about to expire, and then the stalled check
 * hands the object to another worker). This is the fence a handler checks before each write.
 * Healthy locks are renewed every quarter to half lock duration, so the margin never fires
 * for them; it absorbs the round trip between Redis setting the TTL and us hearing of it.
 */
export class LeaseWatch {
  private readonly leases = new Map<string, Lease>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly lockDurationMs: number, private readonly now: () => number = Date.now) {}

  start(): void {
    this.timer = setInterval(() => this.expire(), Math.max(50, Math.floor(this.lockDurationMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * track starts a lease at `lockedAt` (when BullMQ took the lock); `external` (BullMQ's own
   * cancel signal) also aborts it.
   */
  track(jobId: string, lockedAt: number, external?: AbortSignal): AbortSignal {
    const controller = new AbortController();
    this.leases.set(jobId, { controller, renewedAt: Math.min(lockedAt, this.now()) });
    external?.addEventListener('abort', () => this.abort(jobId, 'cancelled', 'the job was cancelled'), { once: true });
    return controller.signal;
  }

  untrack(jobId: string): void {
    this.leases.delete(jobId);
  }

  renewed(jobIds: readonly string[]): void {
    const now = this.now();
    for (const jobId of jobIds) {
      const lease = this.leases.get(jobId);
      if (lease) lease.renewedAt = now;
    }
  }

  abort(jobId: string, cause: AbortCause, message: string): void {
    const lease = this.leases.get(jobId);
    if (lease && !lease.controller.signal.aborted) lease.controller.abort(new JobAbortedError(cause, message));
  }

  abortAll(cause: AbortCause, message: string): void {
    for (const jobId of this.leases.keys()) this.abort(jobId, cause, message);
  }

  get size(): number {
    return this.leases.size;
  }

  /**
   * holds says whether this worker still owns the job, judged now: a process held up past its
   * lock (a busy machine, a long GC) has not run the timer yet, so the signal alone may be late.
   */
  holds(jobId: string): boolean {
    this.expire();
    const lease = this.leases.get(jobId);
    return lease !== undefined && !lease.controller.signal.aborted;
  }

  private expire(): void {
    const deadline = this.now() - this.lockDurationMs * 0.75;
    for (const [jobId, lease] of this.leases) {
      if (lease.renewedAt < deadline) this.abort(jobId, 'lease-lost', `the lock of job ${jobId} was not renewed in time; another worker may take the object`);
    }
  }
}
