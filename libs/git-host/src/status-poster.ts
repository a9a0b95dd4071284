import { postCommitStatus, type CommitStatus, type GitHostTarget } from './commit-status';
import type { PostOptions, PostResult } from './host-request';
import { messageOf } from '@tidemark/contracts';

/** StatusPosterOptions bound how fast and how much a process posts. */
export interface StatusPosterOptions {
  /** Least time between two posts of this process (a rate limit towards the hosts). @defaultValue 100 */
  minIntervalMs?: number;
  /** Posts waiting at most; a post beyond it is dropped and reported as such. @defaultValue 1000 */
  maxQueued?: number;
  /** Retries, backoff and timeout of each post (postCommitStatus). */
  post?: Omit<PostOptions, 'signal'>;
  /** Told of every post's end, including drops and a target that could not be resolved; it must not throw. */
  onResult?: (status: CommitStatus, result: PostResult) => void;
}

/** PendingPost is one status to send, with a way to find its target (its token is read when the post runs). */
interface PendingPost {
  status: CommitStatus;
  target: () => Promise<GitHostTarget>;
  /** Asked just before sending: true leaves the status out (a pending one that a final state overtook). */
  outdated?: () => Promise<boolean>;
}

/**
 * StatusPoster sends commit statuses one at a time, in order, off the caller's path: `enqueue`
 * returns at once, so a slow or dead Git host never slows a reconcile. Each post retries as
 * postCommitStatus does; what fails is reported to `onResult` and dropped. `stop` ends the
 * waits and drops what is still queued.
 */
export class StatusPoster {
  private readonly queue: PendingPost[] = [];
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private lastPostAt = 0;

  constructor(private readonly options: StatusPosterOptions = {}) {
    if ((options.maxQueued ?? 1000) < 1) throw new Error('StatusPoster: maxQueued must be at least 1.');
  }

  /**
   * enqueue queues a status; `target` is resolved (its token read) only when it is sent, and
   * `outdated`, when given, is asked first: a status it calls outdated is not sent.
   */
  enqueue(status: CommitStatus, target: () => Promise<GitHostTarget>, outdated?: () => Promise<boolean>): void {
    if (this.abort.signal.aborted) return;
    if (this.queue.length >= (this.options.maxQueued ?? 1000)) {
      this.options.onResult?.(status, { ok: false, attempts: 0, error: 'dropped: too many statuses waiting to be posted' });
      return;
    }
    this.queue.push({ status, target, ...(outdated ? { outdated } : {}) });
    this.running ??= this.drain().finally(() => { this.running = undefined; });
  }

  /** idle resolves when nothing is queued or in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** stop drops what is queued and cuts the waits short; the post in flight finishes. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.queue.length = 0;
    await this.running;
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      const gap = this.lastPostAt + (this.options.minIntervalMs ?? 100) - Date.now();
      if (gap > 0) await new Promise((done) => setTimeout(done, gap));
      if (this.abort.signal.aborted) return;
      if (await next.outdated?.().catch(() => false)) continue;
      this.lastPostAt = Date.now();
      this.options.onResult?.(next.status, await this.send(next));
    }
  }

  private async send(post: PendingPost): Promise<PostResult> {
    let target: GitHostTarget;
    try {
      target = await post.target();
    } catch (error) {
      // The resolver's message names the Secret or file and the key, never a value.
      return { ok: false, attempts: 0, error: messageOf(error) };
    }
    return postCommitStatus(target, post.status, { ...this.options.post, signal: this.abort.signal });
  }
}
