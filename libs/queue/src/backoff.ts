/** BackoffOptions shape the retry delay of a transient failure. */
export interface BackoffOptions {
  /** Delay before the first retry. @defaultValue 1000 */
  baseMs?: number;
  /** Growth per consecutive failure. @defaultValue 2 */
  factor?: number;
  /** Upper bound of any delay, jitter included. @defaultValue 300000 (5 minutes) */
  maxMs?: number;
  /**
   * Share of the delay that is random, from 0 (none) to 1 (full jitter). The delay lies in
   * [raw × (1 − jitter), raw], so many objects failing together spread out instead of retrying
   * in lockstep. @defaultValue 0.5
   */
  jitter?: number;
}

/** defaultBackoff holds the defaults documented on BackoffOptions. */
export const defaultBackoff: Required<BackoffOptions> = Object.freeze({ baseMs: 1000, factor: 2, maxMs: 300_000, jitter: 0.5 });

/** resolveBackoff fills defaults and rejects options that cannot produce a sane delay. */
export function resolveBackoff(options: BackoffOptions = {}): Required<BackoffOptions> {
  const resolved = { ...defaultBackoff, ...options };
  if (!(resolved.baseMs >= 0) || !(resolved.maxMs >= resolved.baseMs)) {
    throw new RangeError(`backoff needs 0 <= baseMs <= maxMs; got baseMs=${resolved.baseMs}, maxMs=${resolved.maxMs}`);
  }
  if (!(resolved.factor >= 1)) throw new RangeError(`backoff factor must be at least 1; got ${resolved.factor}`);
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) throw new RangeError(`backoff jitter must lie between 0 and 1; got ${resolved.jitter}`);
  return resolved;
}

/**
 * computeBackoff returns the delay before retry number `failures` (1 for the first failure):
 * baseMs × factor^(failures − 1), capped at maxMs, minus up to `jitter` of itself.
 * `random` is injectable so the math can be tested exactly.
 */
export function computeBackoff(failures: number, options: Required<BackoffOptions>, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(failures) - 1);
  // Compare in log space first: factor^exponent overflows to Infinity for long-failing objects.
  const raw = exponent * Math.log(options.factor) >= Math.log(options.maxMs / Math.max(options.baseMs, 1))
    ? options.maxMs
    : Math.min(options.maxMs, options.baseMs * options.factor ** exponent);
  return Math.round(raw * (1 - options.jitter * random()));
}
