import { createHash } from 'node:crypto';
import { stableStringify } from '@tidemark/contracts';

/** specHash is the sha256 of an object in canonical JSON: equal objects hash equally. */
export function specHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}
