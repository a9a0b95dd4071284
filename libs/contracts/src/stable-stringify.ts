/**
 * stableStringify serialises JSON with object keys sorted at every depth, so two objects
 * that are equal give the same string whatever order their keys were written in (the API
 * server and YAML parsers do not keep key order stable). It runs for every object of every run
 * (content hashes), so it builds one string in loops rather than arrays of parts.
 */
export function stableStringify(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) text += (index === 0 ? '' : ',') + stableStringify(value[index]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    text += (text.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + stableStringify(item);
  }
  return `${text}}`;
}
