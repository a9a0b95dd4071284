import { createHash } from 'node:crypto';
import { stableStringify } from './stable-stringify';

/** contentHash is the sha256 (hex) of a value's stable JSON form, independent of key order. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}
