import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RedisClient } from '@tidemark/contracts';

// Where each provider puts the id of a delivery; a redelivery of the same event repeats it.
const deliveryHeaders = ['x-github-delivery', 'x-gitea-delivery', 'x-gogs-delivery', 'x-gitlab-event-uuid', 'x-request-uuid'];

/** deliveryIdOf returns a delivery's id from its provider's header, if it sent one. */
export function deliveryIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const name of deliveryHeaders) {
    const value = headers[name];
    if (typeof value === 'string' && value.length > 0 && value.length <= 200) return value;
  }
  return undefined;
}

/**
 * deliveryDigest is what a delivery is remembered by: the sha256 of its signed body and its
 * delivery header. The header alone is unsigned: keyed by it, anyone could pick which ids count
 * as seen; with the body, only a delivery the provider signed is the same delivery.
 */
export function deliveryDigest(delivery: string, body: Buffer): string {
  return createHash('sha256').update(delivery).update('\0').update(body).digest('hex');
}

/** DeliveryLog remembers the deliveries a receiver has acted on. */
export interface DeliveryLog {
  /** firstSeen records a delivery (its deliveryDigest) and tells whether it is new (false: a duplicate). */
  firstSeen(source: string, digest: string): boolean | Promise<boolean>;
}

/** RedisDeliveryLogOptions: where digests are kept, and for how long. */
export interface RedisDeliveryLogOptions {
  redis: RedisClient;
  /** The deployment's key prefix (RecordKeys.prefix); digests are `<prefix>:webhook-delivery:<source>:<digest>`. */
  prefix: string;
  /** How long a delivery is remembered. @defaultValue 3_600_000 (an hour) */
  ttlMs?: number;
}

/**
 * RedisDeliveryLog remembers deliveries in Redis (SET NX PX), so every replica of the receiver
 * sees the same deliveries: a provider that retries or redelivers an event, or a replayed
 * request, triggers one poll whichever replica it reaches.
 */
export class RedisDeliveryLog implements DeliveryLog {
  private readonly ttlMs: number;

  constructor(private readonly options: RedisDeliveryLogOptions) {
    this.ttlMs = options.ttlMs ?? 3_600_000;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 1000) throw new Error(`RedisDeliveryLog: ttlMs must be at least 1000, not ${this.ttlMs}.`);
  }

  async firstSeen(source: string, digest: string): Promise<boolean> {
    const set = await this.options.redis.set(`${this.options.prefix}:webhook-delivery:${source}:${digest}`, '1', 'PX', this.ttlMs, 'NX');
    return set === 'OK';
  }
}

/**
 * MemoryDeliveryLog keeps the last `capacity` deliveries per receiver for `ttlMs`, in this process
 * only: for an embedder without Redis. The reconciler always uses a RedisDeliveryLog.
 */
export class MemoryDeliveryLog implements DeliveryLog {
  private readonly seen = new Map<string, number>();

  /**
   * @param capacity most deliveries kept. @defaultValue 10000
   * @param ttlMs how long a delivery is remembered. @defaultValue 3_600_000 (an hour)
   */
  constructor(private readonly capacity = 10_000, private readonly ttlMs = 3_600_000) {}

  firstSeen(source: string, digest: string, now = Date.now()): boolean {
    const key = `${source}\u0000${digest}`;
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(key);
    this.seen.set(key, now);
    // Map keeps insertion order: the first key is the oldest.
    while (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }
}
