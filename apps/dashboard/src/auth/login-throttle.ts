/**
 * LoginThrottle counts failed sign-ins per client address. After `maxFailures` within `windowMs`
 * the client is refused (429) until the window has passed since its first failure, whatever
 * token it sends, so tokens cannot be guessed at speed. Memory is bounded: the oldest clients
 * are forgotten first.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  /**
   * @param maxFailures failures allowed per window. @defaultValue 5
   * @param windowMs the window. @defaultValue 900_000 (15 minutes)
   * @param capacity most clients remembered. @defaultValue 10000
   */
  constructor(private readonly maxFailures = 5, private readonly windowMs = 900_000, private readonly capacity = 10_000) {}

  /** blockedFor returns how many seconds a client must wait, 0 when it may try. */
  blockedFor(client: string, now = Date.now()): number {
    const entry = this.failures.get(client);
    if (!entry || now - entry.since >= this.windowMs) return 0;
    return entry.count >= this.maxFailures ? Math.ceil((entry.since + this.windowMs - now) / 1000) : 0;
  }

  failed(client: string, now = Date.now()): void {
    const entry = this.failures.get(client);
    const fresh = !entry || now - entry.since >= this.windowMs;
    this.failures.delete(client);
    this.failures.set(client, fresh ? { count: 1, since: now } : { count: entry.count + 1, since: entry.since });
    while (this.failures.size > this.capacity) this.failures.delete(this.failures.keys().next().value as string);
  }

  succeeded(client: string): void {
    this.failures.delete(client);
  }
}
