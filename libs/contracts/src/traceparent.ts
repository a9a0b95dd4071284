/**
 * The W3C trace context header (https://www.w3.org/TR/trace-context/#traceparent-header) as jobs carry
 * it from the poller to a worker. It comes back out of Redis, so it is read like any input: only
 * version 00, lowercase hex, no all-zero ids, nothing before or after.
 */

/** traceparentPattern matches a version-00 traceparent exactly (the ids' all-zero rule is parseTraceparent's). */
export const traceparentPattern = '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$';

/** traceparentLength is the length of every version-00 traceparent. */
export const traceparentLength = 55;

/** TraceParent is a parsed traceparent: the trace, the span that is the parent, and whether it is sampled. */
export interface TraceParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
}

const exactly = new RegExp(traceparentPattern);

/** parseTraceparent reads a traceparent; undefined for anything that is not exactly one (wrong type, length, case, version or an all-zero id). */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string' || value.length !== traceparentLength || !exactly.test(value)) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = value.split('-');
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** formatTraceparent writes the version-00 header of a span. */
export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.sampled ? '01' : '00'}`;
}
