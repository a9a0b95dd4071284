import type { ReconcileJob } from '@tidemark/contracts';

/** CommitOrigin is when a change started: its commit time, or the webhook that announced it. */
export interface CommitOrigin {
  atMs: number;
  origin: 'commit' | 'webhook';
}

interface Pending extends CommitOrigin {
  revision: string;
}

/**
 * CommitClock measures commit-to-live: a poll's changed objects are remembered with the
 * revision and its origin, and the first run that finds one Ready at that revision ends the
 * clock. Only objects a commit changed are timed, never resyncs. It lives in the process that
 * polls and works, so with separate poller and worker processes it measures nothing.
 */
export class CommitClock {
  private readonly webhooks = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();

  /** @param limit objects remembered at most; the oldest are forgotten first. */
  constructor(private readonly limit = 100_000) {}

  /** webhookArrived notes a push announcement; the next poll of the source takes it. */
  webhookArrived(source: string, atMs = Date.now()): void {
    if (!this.webhooks.has(source)) this.webhooks.set(source, atMs);
  }

  /** pollStarted moves a webhook's arrival to the poll it triggered, so a later poll cannot claim it. */
  pollStarted(source: string): void {
    const arrival = this.webhooks.get(source);
    this.webhooks.delete(source);
    if (arrival === undefined) this.inFlight.delete(source);
    else this.inFlight.set(source, arrival);
  }

  /** changesQueued starts the clock of every object a commit changed, before its job is queued. */
  changesQueued(source: string, jobs: readonly ReconcileJob[], commitTime: Date | undefined): void {
    const webhook = this.inFlight.get(source);
    this.inFlight.delete(source);
    const origin: CommitOrigin | undefined = webhook !== undefined
      ? { atMs: webhook, origin: 'webhook' }
      : commitTime ? { atMs: commitTime.getTime(), origin: 'commit' } : undefined;
    if (!origin) return;
    for (const job of jobs) {
      if (job.reason !== 'git-change') continue;
      const key = keyOf(job.cluster, job.objectKey);
      this.pending.delete(key);
      this.pending.set(key, { ...origin, revision: job.revision });
    }
    for (const key of this.pending.keys()) {
      if (this.pending.size <= this.limit) break;
      this.pending.delete(key);
    }
  }

  /** live stops the clock of an object that became Ready at a revision; undefined when none ran. */
  live(cluster: string, objectKey: string, revision: string, atMs = Date.now()): { seconds: number; origin: CommitOrigin['origin'] } | undefined {
    const key = keyOf(cluster, objectKey);
    const started = this.pending.get(key);
    if (!started || started.revision !== revision) return undefined;
    this.pending.delete(key);
    return { seconds: Math.max(0, atMs - started.atMs) / 1000, origin: started.origin };
  }
}

function keyOf(cluster: string, objectKey: string): string {
  return `${cluster}\u0000${objectKey}`;
}
