import { createHash } from 'node:crypto';
import type { RedisClient } from '@tidemark/contracts';

/** LoginThrottleOptions: where failures are counted, and how many are allowed. */
export interface LoginThrottleOptions {
  redis: RedisClient;
  /** The deployment's key prefix (RecordKeys.prefix); counters are `<prefix>:login-failures:<digest>`. */
  prefix: string;
  /** Failures allowed per window. @defaultValue 5 */
  maxFailures?: number;
  /** The window, from a key's first failure. @defaultValue 900_000 (15 minutes) */
  windowMs?: number;
}

// One failure: the counter's window starts at its first failure and is never extended by later ones.
const failScript = `
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

/**
 * LoginThrottle counts failed sign-ins and failed bearer tokens per key, in Redis, so every
 * dashboard replica counts the same failures. After `maxFailures` within `windowMs` the key is
 * refused (429) until the window has passed since its first failure, whatever token it sends, so
 * tokens cannot be guessed at speed. A key is a client address, or an address and the name a
 * sign-in claims (see throttleKey), so that one client behind a shared address locks out only
 * what it tried. Each counter expires with its window, so memory is bounded by the guessers.
 */
export class LoginThrottle {
  private readonly maxFailures: number;
  private readonly windowMs: number;

  constructor(private readonly options: LoginThrottleOptions) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 900_000;
    if (!Number.isInteger(this.maxFailures) || this.maxFailures < 1) throw new Error(`LoginThrottle: maxFailures must be a positive integer, not ${this.maxFailures}.`);
    if (!Number.isInteger(this.windowMs) || this.windowMs < 1000) throw new Error(`LoginThrottle: windowMs must be at least 1000, not ${this.windowMs}.`);
  }

  /** blockedFor returns how many seconds a key must wait, 0 when it may try. */
  async blockedFor(key: string): Promise<number> {
    const counter = this.counterKey(key);
    const results = await this.options.redis.multi().get(counter).pttl(counter).exec();
    const count = Number(results?.[0]?.[1] ?? 0);
    const ttl = Number(results?.[1]?.[1] ?? -2);
    return count >= this.maxFailures && ttl > 0 ? Math.ceil(ttl / 1000) : 0;
  }

  async failed(key: string): Promise<void> {
    await this.options.redis.eval(failScript, 1, this.counterKey(key), String(this.windowMs));
  }

  async succeeded(key: string): Promise<void> {
    await this.options.redis.del(this.counterKey(key));
  }

  // A digest: the key holds an address and a claimed name, neither of which belongs in a key listing.
  private counterKey(key: string): string {
    return `${this.options.prefix}:login-failures:${createHash('sha256').update(key).digest('hex')}`;
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
