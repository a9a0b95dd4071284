import { hash } from 'node:crypto';
import { stableStringify } from './stable-stringify';

/**
 * contentHash is the sha256 (hex) of a value's stable JSON form, independent of key order:
 * equal values hash equally. The pipeline's spec hash and the kinds' config hashes are this.
 * It runs for every object of every run: crypto.hash is the one-shot form, without the Hash
 * object createHash builds (the same digest).
 */
export function contentHash(value: unknown): string {
  return hash('sha256', stableStringify(value), 'hex');
}
