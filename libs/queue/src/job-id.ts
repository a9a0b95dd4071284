import { randomBytes } from 'node:crypto';

const separator = '@';

/**
 * formatJobId names one BullMQ job for an object: the object key (with `%` and `:` escaped,
 * because BullMQ refuses `:` in custom ids) then `@` and a unique suffix. The key makes ids
 * readable on the dashboard; the suffix keeps a finished job's id from colliding with the
 * next job for the same object. Deduplication is by object key, not by job id.
 */
export function formatJobId(objectKey: string, unique: string = uniqueSuffix()): string {
  return `${objectKey.replace(/%/g, '%25').replace(/:/g, '%3A')}${separator}${unique}`;
}

/** objectKeyOfJobId reverses formatJobId; undefined for an id it did not make. */
export function objectKeyOfJobId(jobId: string): string | undefined {
  const at = jobId.lastIndexOf(separator);
  if (at <= 0) return undefined;
  return jobId.slice(0, at).replace(/%3A/g, ':').replace(/%25/g, '%');
}

/** uniqueSuffix is the time (base-36 milliseconds, for people reading ids) plus 48 random bits. */
export function uniqueSuffix(now: number = Date.now()): string {
  return `${now.toString(36)}${randomBytes(6).toString('hex')}`;
}
