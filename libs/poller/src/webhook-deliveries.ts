import type { IncomingHttpHeaders } from 'node:http';

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

/** DeliveryLog remembers the deliveries a receiver has acted on. */
export interface DeliveryLog {
  /** firstSeen records a delivery and tells whether it is new (false: a duplicate). */
  firstSeen(source: string, id: string): boolean | Promise<boolean>;
}

/**
 * MemoryDeliveryLog keeps the last `capacity` delivery ids per receiver for `ttlMs`. A provider
 * that retries or redelivers an event, or a replayed request, triggers one poll, not one each.
 */
export class MemoryDeliveryLog implements DeliveryLog {
  private readonly seen = new Map<string, number>();

  /**
   * @param capacity most ids kept. @defaultValue 10000
   * @param ttlMs how long an id is remembered. @defaultValue 3_600_000 (an hour)
   */
  constructor(private readonly capacity = 10_000, private readonly ttlMs = 3_600_000) {}

  firstSeen(source: string, id: string, now = Date.now()): boolean {
    const key = `${source}\u0000${id}`;
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(key);
    this.seen.set(key, now);
    // Map keeps insertion order: the first key is the oldest.
    while (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }
}
