/**
 * pollDelay spreads polls of many sources (and replicas) over time: the interval moved by up
 * to ±jitter of itself, so sources set to the same interval do not poll in lockstep.
 */
export function pollDelay(intervalMs: number, jitter: number, random: () => number = Math.random): number {
  const spread = intervalMs * jitter * (2 * random() - 1);
  return Math.max(0, Math.round(intervalMs + spread));
}
