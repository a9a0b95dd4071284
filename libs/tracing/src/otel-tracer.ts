// Loaded only when tracing is on (startTracing imports it on demand): with tracing off, no
// OpenTelemetry SDK module is ever read.
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, trace, type Context, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { formatTraceparent, messageOf, parseTraceparent, scrubText } from '@tidemark/contracts';
import type { SpanAttributes, StartSpanOptions, TraceSpan, Tracer } from './tracer';
import type { TracingOptions } from './tracing-options';

/** A failed span's message is cut here: it is for finding the step, the logs hold the rest. */
const maxStatusMessage = 500;

/**
 * createOtelTracer is a Tracer on OpenTelemetry's SDK with its own provider (nothing global is
 * registered, so two in one process do not meet): spans are batched and sent over OTLP/HTTP JSON,
 * at most `maxQueuedSpans` waiting, each export bounded in time. Parents are passed explicitly,
 * never through a context manager.
 */
export function createOtelTracer(options: TracingOptions): Tracer {
  const exportTimeoutMillis = options.exportTimeoutMs ?? 10_000;
  const maxQueueSize = options.maxQueuedSpans ?? 2048;
  const exporter = new OTLPTraceExporter({ url: options.endpoint, headers: { ...options.headers }, timeoutMillis: exportTimeoutMillis, concurrencyLimit: 4 });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'tidemark', ...(options.role ? { 'tidemark.role': options.role } : {}) }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.samplingRatio ?? 1) }),
    spanLimits: { attributeCountLimit: 64, attributeValueLengthLimit: 1024, eventCountLimit: 16, linkCountLimit: 4 },
    spanProcessors: [new BatchSpanProcessor({
      exporter, maxQueueSize, maxExportBatchSize: Math.min(512, maxQueueSize), scheduledDelayMillis: options.batchDelayMs ?? 2_000, exportTimeoutMillis,
    })],
  });
  const tracer = provider.getTracer('tidemark');
  const open: Open = (name, parent, attributes, startTime) => new OtelSpan(tracer.startSpan(name, { attributes: defined(attributes), ...(startTime ? { startTime } : {}) }, parent), open);
  return {
    enabled: true,
    start: (name: string, start: StartSpanOptions = {}) => open(name, contextOf(start.parent), start.attributes),
    stop: async () => {
      await provider.forceFlush().catch(() => undefined);
      await provider.shutdown().catch(() => undefined);
    },
  };
}

type Open = (name: string, parent: Context, attributes: SpanAttributes | undefined, startTime?: Date) => TraceSpan;

class OtelSpan implements TraceSpan {
  readonly traceparent: string | undefined;
  readonly traceId: string | undefined;

  constructor(readonly span: Span, private readonly open: Open) {
    const context = span.spanContext();
    const sampled = (context.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
    this.traceparent = formatTraceparent({ traceId: context.traceId, spanId: context.spanId, sampled });
    this.traceId = sampled ? context.traceId : undefined;
  }

  child(name: string, attributes?: SpanAttributes, startTime?: Date): TraceSpan {
    return this.open(name, trace.setSpan(ROOT_CONTEXT, this.span), attributes, startTime);
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes));
  }

  fail(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string') this.span.setAttribute('tidemark.error.code', code.slice(0, 100));
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: scrubText(messageOf(error)).slice(0, maxStatusMessage) });
  }

  end(): void {
    this.span.end();
  }
}

/** contextOf is the parent context: a span of this tracer, a valid traceparent (remote), or none. */
function contextOf(parent: TraceSpan | string | undefined): Context {
  if (parent instanceof OtelSpan) return trace.setSpan(ROOT_CONTEXT, parent.span);
  const remote = typeof parent === 'string' ? parseTraceparent(parent) : undefined;
  if (!remote) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: remote.traceId, spanId: remote.spanId, traceFlags: remote.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });
}

function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes ?? {})) if (value !== undefined) kept[key] = value;
  return kept;
}
