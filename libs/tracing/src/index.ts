// Owns: tracing: the small Tracer and TraceSpan interface the poller, queue and pipeline call, the
//   tracer that records nothing (tracing off), and the OpenTelemetry SDK with OTLP export behind it,
//   loaded only when tracing is on. The traceparent format itself lives in contracts (it is in the job).
// Entry points: startTracing, noTracing, noSpan, inSpan.
// Records: none.
// May import: @tidemark/contracts.

export { noSpan, noTracing, inSpan, type Tracer, type TraceSpan } from './tracer';
export { startTracing } from './start-tracing';
export { checkTracingOptions, type TracingOptions } from './tracing-options';
