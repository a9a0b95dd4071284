/** SpanAttributes are a span's attributes; undefined values are left out. Never a Secret's value. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** TraceSpan is one timed step of a trace. Every method is safe to call on a span tracing does not record. */
export interface TraceSpan {
  /** traceparent is this span's W3C header, to hand to another process; undefined when the span is not recorded. */
  readonly traceparent: string | undefined;
  /** traceId is the trace this span belongs to; undefined when it is not recorded. */
  readonly traceId: string | undefined;
  /** child starts a span under this one, now or at `startTime` (a wait that began before this process knew of it). */
  child(name: string, attributes?: SpanAttributes, startTime?: Date): TraceSpan;
  set(attributes: SpanAttributes): void;
  /** fail marks the span failed with the error's code and its scrubbed, shortened message. */
  fail(error: unknown): void;
  end(): void;
}

/** StartSpanOptions: where a new span hangs, and what it says from the start. */
export interface StartSpanOptions {
  /** A span of this process, or a traceparent from another. @defaultValue none: the span starts a trace */
  parent?: TraceSpan | string;
  attributes?: SpanAttributes;
}

/** Tracer starts spans and, at stop, exports what is left. */
export interface Tracer {
  /** enabled is false for the tracer that records nothing: callers may skip work that only feeds spans. */
  readonly enabled: boolean;
  start(name: string, options?: StartSpanOptions): TraceSpan;
  /** stop exports the spans not sent yet (bounded in time) and stops exporting. */
  stop(): Promise<void>;
}

/** noSpan is the span of a tracer that records nothing: one shared object, every call a no-op. */
export const noSpan: TraceSpan = Object.freeze({
  traceparent: undefined,
  traceId: undefined,
  child: () => noSpan,
  set: () => undefined,
  fail: () => undefined,
  end: () => undefined,
});

/** noTracing is the tracer when tracing is off: no SDK is loaded, and a span costs a function call. */
export const noTracing: Tracer = Object.freeze({
  enabled: false,
  start: () => noSpan,
  stop: async () => undefined,
});

/**
 * inSpan runs `body` in a child span of `parent`, ending it however `body` ends and marking it
 * failed when it throws (the error is thrown on unchanged).
 */
export async function inSpan<T>(parent: TraceSpan, name: string, attributes: SpanAttributes | undefined, body: (span: TraceSpan) => Promise<T>): Promise<T> {
  if (parent === noSpan) return body(noSpan);
  const span = parent.child(name, attributes);
  try {
    return await body(span);
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}
