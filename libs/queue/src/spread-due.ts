/**
 * spreadDue is when an unchanged object is looked at again: the first time after `now`, at most
 * `intervalMs` later, that falls on the object's own place in the interval (a stable hash of cluster
 * and object key). Objects a push applied together stay due together only until their first sweep;
 * from then on N objects are due about N / interval at a time, each exactly once an interval, in
 * every process alike. Like spreadDelayMs for the full resync, without its SHA-1 per object (the
 * sweep reschedules every object of a cluster once an interval).
 */
export function spreadDue(cluster: string, objectKey: string, now: number, intervalMs: number): number {
  const interval = Math.max(1, Math.floor(intervalMs));
  const place = Math.floor((fnv1a(cluster, objectKey) / 0x1_0000_0000) * interval);
  const wait = (((place - now) % interval) + interval) % interval;
  return now + (wait === 0 ? interval : wait);
}

/** fnv1a is the 32-bit FNV-1a hash of cluster, a NUL and the object key (UTF-16 code units). */
function fnv1a(cluster: string, objectKey: string): number {
  let hash = 0x811c9dc5;
  const text = `${cluster}\0${objectKey}`;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
