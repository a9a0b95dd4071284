import { stableStringify } from '@tidemark/contracts';

/** deepEqual compares two JSON values structurally, ignoring object key order. */
export function deepEqual(left: unknown, right: unknown): boolean {
  return stableStringify(left) === stableStringify(right);
}
