/**
 * SharedRounds lets concurrent callers share one run of an asynchronous round, without any caller
 * sharing a round that began before it asked (group commit). A caller that finds no round under
 * way starts one; callers that arrive while one is under way wait for the next, which starts when
 * the current one ends and serves all of them. So every caller is served by a round that began
 * after its call, and at most two rounds are ever pending.
 *
 * The status cache's read-your-writes sync uses it: a round publishes one marker and waits for it,
 * so sixteen requests at once cost two Redis round trips instead of sixteen.
 */
export class SharedRounds {
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  /** round runs one round; it should not reject (a rejection is passed to every caller of that round). */
  constructor(private readonly round: () => Promise<void>) {}

  /** run resolves once a round that began after this call has ended. */
  run(): Promise<void> {
    if (!this.current) return this.start();
    this.next ??= this.current.catch(() => undefined).then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const round = this.round().finally(() => {
      if (this.current === round) this.current = undefined;
    });
    this.current = round;
    return round;
  }
}
