import { createHash } from 'node:crypto';

/**
 * spreadDelayMs places one object's routine resync in a window: a stable hash of (cluster,
 * object key) picks a whole millisecond in [0, windowMs). The same object lands on the same
 * offset every cycle, so each is looked at once per interval, and N objects are due about
 * N / windowMs at a time instead of all at once. A window of 0 gives 0 (no spreading).
 */
export function spreadDelayMs(cluster: string, objectKey: string, windowMs: number): number {
  if (!(Number.isFinite(windowMs) && windowMs >= 0)) throw new RangeError(`A resync spread window must be a finite number of ms >= 0; got ${windowMs}.`);
  if (windowMs < 1) return 0;
  // 48 bits of SHA-1: uniform enough for any window a person would set, and the same in every process.
  const digest = createHash('sha1').update(cluster).update('\0').update(objectKey).digest();
  return Math.floor((digest.readUIntBE(0, 6) / 2 ** 48) * Math.floor(windowMs));
}
