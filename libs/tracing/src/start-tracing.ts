import { noTracing, type Tracer } from './tracer';
import { checkTracingOptions, type TracingOptions } from './tracing-options';

/**
 * startTracing returns the tracer for `options`: noTracing when tracing is off (undefined), else
 * one that exports over OTLP. The SDK is imported only then, so tracing off loads none of it.
 */
export async function startTracing(options: TracingOptions | undefined): Promise<Tracer> {
  if (!options) return noTracing;
  checkTracingOptions(options);
  const { createOtelTracer } = await import('./otel-tracer');
  return createOtelTracer(options);
}
