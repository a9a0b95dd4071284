import { createHash } from 'node:crypto';
import { stableStringify } from './stable-stringify';

/**
 * contentHash is the sha256 (hex) of a value's stable JSON form, independent of key order:
 * equal values hash equally. The pipeline's spec hash and the kinds' config hashes are this.
 */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}
