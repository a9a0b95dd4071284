/** PlainObject is a JSON object: the shape every Kubernetes manifest field takes. */
export type PlainObject = Record<string, unknown>;

/** isPlainObject tells a JSON object from arrays, null and scalars. */
export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
