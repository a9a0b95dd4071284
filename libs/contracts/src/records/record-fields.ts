/**
 * Record fields: the checks every `parseX` of a Redis record is built from. Anyone who can write
 * Redis can write a record, so a parser reads it as hostile input: it copies the fields it knows,
 * one by one, into a new object (a `__proto__` or any unknown key is never carried over), and a
 * field of the wrong type or over its bound is dropped. A record missing a field its readers need
 * is dropped whole.
 */

/** FieldRecord is a parsed JSON object whose fields are still unchecked. */
export type FieldRecord = Readonly<Record<string, unknown>>;

/** maxRecordText bounds a text field that has no tighter bound of its own (a message, a path). */
export const maxRecordText = 64 * 1024;

/** jsonRecordOf parses a stored JSON text into an object; undefined for a missing, unreadable or non-object one. */
export function jsonRecordOf(raw: string | null | undefined): FieldRecord | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined;
  try {
    return recordOf(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

/** jsonListOf parses a stored JSON array; undefined for a missing, unreadable or non-array one. */
export function jsonListOf(raw: string | null | undefined): readonly unknown[] | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** recordOf is `value` when it is a JSON object (not an array, not null), else undefined. */
export function recordOf(value: unknown): FieldRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as FieldRecord) : undefined;
}

/** textOf is `value` when it is a string of at most `max` characters, else undefined. */
export function textOf(value: unknown, max = maxRecordText): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** countOf is `value` when it is a finite number of 0 or more, else undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** oneOf is `value` when it is one of `allowed`, else undefined. */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** textsOf keeps the strings of a list (each at most `max` characters); undefined when it is not a list. */
export function textsOf(value: unknown, max = maxRecordText): string[] | undefined {
  return Array.isArray(value) ? value.filter((entry): entry is string => textOf(entry, max) !== undefined) : undefined;
}

/** listOf parses each entry of a list with `parse`, dropping those it refuses; undefined when it is not a list. */
export function listOf<T>(value: unknown, parse: (entry: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((entry) => {
    const parsed = parse(entry);
    return parsed === undefined ? [] : [parsed];
  });
}

/**
 * optional returns `{[name]: value}` when value is defined and `{}` otherwise, so a parser can
 * spread optional fields without writing `undefined` into the record.
 */
export function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
