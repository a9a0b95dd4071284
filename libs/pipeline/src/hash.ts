import { createHash } from 'node:crypto';
import { canonical } from '@tidemark/cluster';

/** specHash is the sha256 of an object in canonical JSON: equal objects hash equally. */
export function specHash(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex');
}
