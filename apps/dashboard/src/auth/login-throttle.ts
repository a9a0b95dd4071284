/**
 * LoginThrottle counts failed sign-ins and failed bearer tokens per key. After `maxFailures`
 * within `windowMs` the key is refused (429) until the window has passed since its first
 * failure, whatever token it sends, so tokens cannot be guessed at speed. A key is a client
 * address, or an address and the name a sign-in claims (see throttleKey), so that one client
 * behind a shared address locks out only what it tried. Memory is bounded: the oldest keys are
 * forgotten first. Kept in-process; a multi-replica dashboard throttles per replica.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  /**
   * @param maxFailures failures allowed per window. @defaultValue 5
   * @param windowMs the window. @defaultValue 900_000 (15 minutes)
   * @param capacity most keys remembered. @defaultValue 10000
   */
  constructor(private readonly maxFailures = 5, private readonly windowMs = 900_000, private readonly capacity = 10_000) {}

  /** blockedFor returns how many seconds a key must wait, 0 when it may try. */
  blockedFor(key: string, now = Date.now()): number {
    const entry = this.failures.get(key);
    if (!entry || now - entry.since >= this.windowMs) return 0;
    return entry.count >= this.maxFailures ? Math.ceil((entry.since + this.windowMs - now) / 1000) : 0;
  }

  failed(key: string, now = Date.now()): void {
    const entry = this.failures.get(key);
    const fresh = !entry || now - entry.since >= this.windowMs;
    this.failures.delete(key);
    this.failures.set(key, fresh ? { count: 1, since: now } : { count: entry.count + 1, since: entry.since });
    while (this.failures.size > this.capacity) this.failures.delete(this.failures.keys().next().value as string);
  }

  succeeded(key: string): void {
    this.failures.delete(key);
  }
}

/**
 * throttleKey is what failures are counted by: the client address, with the name a sign-in
 * claims when it claims one. Bearer tokens and sign-ins without a name share the address's key,
 * so switching between them gains no tries.
 */
export function throttleKey(address: string, name?: string): string {
  return name ? `${address}\0${name}` : address;
}
