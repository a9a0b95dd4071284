import { isSecretKey, redactValue as redactBy, scrubText, type DriftItem, type ObjectStatus, type ReconcileRecord } from '@tidemark/contracts';

/** redactedValue replaces anything that could be Secret data. */
export const redactedValue = '(redacted)';

/** isSensitivePath tells whether a JSON pointer runs through a field whose values are hidden (the one secret rule, isSecretKey). */
export function isSensitivePath(pointer: string): boolean {
  return pointer.split('/').some((segment) => isSecretKey(segment.replaceAll('~1', '/').replaceAll('~0', '~')));
}

/** redactValue copies a JSON value with every secret field's value replaced and credentials scrubbed from its strings, as the logs do. */
export function redactValue(value: unknown): unknown {
  return redactBy(value, { censor: redactedValue });
}

// ConfigMap payloads are configuration, not secrets: shown, unless the object opted into redaction
// (then the reconciler never recorded the values). Their keys are still checked by name.
const configMapPayload = new Set(['data', 'binaryData']);

/** driftKindOf reads the kind of the drifted object: `Kind namespace/name`, or the record's own kind. */
function driftKindOf(item: DriftItem, recordKind: string): string {
  return item.object ? (item.object.split(' ', 1)[0] ?? recordKind) : recordKind;
}

function redactConfigMapDrift(item: DriftItem): DriftItem {
  const segments = item.path.split('/').slice(1);
  const [first, ...rest] = segments;
  if (!first || !configMapPayload.has(first)) return { ...item, desired: redactValue(item.desired), live: redactValue(item.live) };
  if (rest.length > 0) return isSensitivePath(`/${rest.join('/')}`) ? { ...item, desired: redactedValue, live: redactedValue } : item;
  // The whole map changed (e.g. /data): show it with credential-named keys hidden.
  return { ...item, desired: redactKeys(item.desired), live: redactKeys(item.live) };
}

function redactKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, isSecretKey(key) ? redactedValue : inner]));
}

function redactDrift(item: DriftItem, recordKind: string): DriftItem {
  const kind = driftKindOf(item, recordKind);
  if (kind === 'Secret') return { ...item, desired: redactedValue, live: redactedValue };
  if (kind === 'ConfigMap') return redactConfigMapDrift(item);
  if (isSensitivePath(item.path)) return { ...item, desired: redactedValue, live: redactedValue };
  return { ...item, desired: redactValue(item.desired), live: redactValue(item.live) };
}

/**
 * redactStatus is applied to every record before it leaves the server. The store holds no
 * Secret data by design; this is the second line, in case a kind or a drift item ever does.
 */
export function redactStatus(status: ObjectStatus): ObjectStatus {
  const copy: ObjectStatus = { ...status, conditions: status.conditions.map((condition) => ({ ...condition, message: scrub(condition.message) })) };
  if (status.warnings) copy.warnings = status.warnings.map(scrub);
  if (status.failure?.detail) copy.failure = { ...status.failure, detail: scrub(status.failure.detail) };
  if (status.kindStatus) copy.kindStatus = redactValue(status.kindStatus) as Record<string, unknown>;
  // An API server message about a Secret may quote its data: keep the category and code only.
  if (status.kind === 'Secret' && status.failure?.detail) copy.failure = { category: status.failure.category, code: status.failure.code };
  if (status.drift) copy.drift = status.drift.map((item) => redactDrift(item, status.kind));
  return copy;
}

/** redactHistory scrubs credentials from the runs' messages before they leave the server, as the logs do. */
export function redactHistory(history: readonly ReconcileRecord[]): ReconcileRecord[] {
  return history.map((run) => (run.message === undefined ? run : { ...run, message: scrub(run.message) }));
}

function scrub(text: string): string {
  return scrubText(text, redactedValue);
}
