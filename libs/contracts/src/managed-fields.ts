/** ManagedFieldsEntry is one entry of metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: string;
  fieldsV1?: unknown;
}

/**
 * newestFirst orders managedFields entries by time, newest first. An entry without a time
 * (the API server leaves it out for writes through /scale) counts as newest: it cannot be
 * shown to be older, and treating it as old would hide who last changed the object.
 */
export function newestFirst(entries: unknown): ManagedFieldsEntry[] {
  if (!Array.isArray(entries)) return [];
  const time = (entry: ManagedFieldsEntry) => entry.time ?? '9999';
  return [...(entries as ManagedFieldsEntry[])].sort((a, b) => time(b).localeCompare(time(a)));
}
