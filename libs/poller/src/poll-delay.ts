/**
 * pollDelay spreads polls of many sources (and replicas) over time: the interval moved by up
 * to ±jitter of itself, so sources set to the same interval do not poll in lockstep.
 */
export function pollDelay(intervalMs: number, jitter: number, random: () => number = Math.random): number {
  const spread = intervalMs * jitter * (2 * random() - 1);
  return Math.max(0, Math.round(intervalMs + spread));
}

/**
 * retryDelay is the wait before polling again after `failures` polls in a row failed (a fetch, or a
 * hand-off of changes refused while Redis fails over): `baseMs` doubling per failure, up to
 * `capMs`, less up to a fifth at random so replicas' retries do not line up. A push's webhook
 * triggers one poll; without a retry, a change it failed to hand on would wait a whole interval.
 */
export function retryDelay(failures: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const doubled = baseMs * 2 ** Math.min(Math.max(failures, 1) - 1, 30);
  return Math.max(0, Math.round(Math.min(doubled, capMs) * (1 - 0.2 * random())));
}
