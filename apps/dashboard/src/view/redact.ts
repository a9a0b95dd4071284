import type { DriftItem, ObjectStatus } from '@tidemark/contracts';

/** redactedValue replaces anything that could be Secret data. */
export const redactedValue = '(redacted)';

// Field names whose values are never shown: Secret payloads and credential-looking fields.
const sensitiveField = /^(data|stringData|binaryData|password|passwd|token|secret|apiKey|privateKey|credentials?)$/i;

/** isSensitivePath tells whether a JSON pointer runs through a field whose values are hidden. */
export function isSensitivePath(pointer: string): boolean {
  return pointer.split('/').some((segment) => sensitiveField.test(segment.replaceAll('~1', '/').replaceAll('~0', '~')));
}

/** redactValue copies a JSON value with every sensitive field's value replaced. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) copy[field] = sensitiveField.test(field) ? redactedValue : redactValue(inner);
  return copy;
}

function redactDrift(item: DriftItem, isSecret: boolean): DriftItem {
  if (isSecret || isSensitivePath(item.path)) return { ...item, desired: redactedValue, live: redactedValue };
  return { ...item, desired: redactValue(item.desired), live: redactValue(item.live) };
}

/**
 * redactStatus is applied to every record before it leaves the server. The store holds no
 * Secret data by design; this is the second line, in case a kind or a drift item ever does.
 */
export function redactStatus(status: ObjectStatus): ObjectStatus {
  const isSecret = status.kind === 'Secret';
  const copy: ObjectStatus = { ...status };
  if (status.kindStatus) copy.kindStatus = redactValue(status.kindStatus) as Record<string, unknown>;
  // An API server message about a Secret may quote its data: keep the category and code only.
  if (isSecret && status.failure?.detail) copy.failure = { category: status.failure.category, code: status.failure.code };
  if (status.drift) copy.drift = status.drift.map((item) => redactDrift(item, isSecret));
  return copy;
}
