import { Type, type Static } from '@sinclair/typebox';
import { checkTracingOptions, type TracingOptions } from '@tidemark/tracing';
import { messageOf } from '@tidemark/contracts';

const SecretReadInput = Type.Union([
  Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);

/** TracingInput is the `tracing` section of tidemark.yaml; without it, nothing is traced. */
export const TracingInput = Type.Object({
  /** The OTLP/HTTP traces URL (https, or http to loopback), e.g. https://otel-collector:4318/v1/traces. */
  endpoint: Type.String({ minLength: 1, maxLength: 2048 }),
  /** Headers on every export, each value from the environment or a file (a mounted Secret); never in this file. */
  headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128 }), SecretReadInput, { maxProperties: 16 })),
  /** Share of new traces recorded, 0 to 1. @defaultValue 1 */
  samplingRatio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  /** @defaultValue 'tidemark' */
  serviceName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  /** @defaultValue 10000 */
  exportTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
  /** Spans waiting for export at most; more are dropped. @defaultValue 2048 */
  maxQueuedSpans: Type.Optional(Type.Integer({ minimum: 16, maximum: 65_536 })),
  /** How long finished spans wait to be sent together. @defaultValue 2000 */
  batchDelayMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
}, { additionalProperties: false });
type TracingInput = Static<typeof TracingInput>;

/** TracingConfig is what the reconciler traces with: the options with the headers read, or undefined (off). */
export type TracingConfig = TracingOptions | undefined;

/** tracingConfig reads the section: each header value through `readSecret`, then the endpoint and ratio are checked. */
export function tracingConfig(input: TracingInput | undefined, context: {
  role: string;
  readSecret: (ref: Static<typeof SecretReadInput>, field: string) => string;
  invalid: (field: string, message: string) => Error;
}): TracingConfig {
  if (!input) return undefined;
  const headers = Object.fromEntries(Object.entries(input.headers ?? {}).map(([name, ref]) => [name, context.readSecret(ref, `tracing.headers.${name}`)]));
  const options: TracingOptions = {
    endpoint: input.endpoint,
    headers,
    samplingRatio: input.samplingRatio ?? 1,
    serviceName: input.serviceName ?? 'tidemark',
    role: context.role,
    exportTimeoutMs: input.exportTimeoutMs ?? 10_000,
    maxQueuedSpans: input.maxQueuedSpans ?? 2048,
    batchDelayMs: input.batchDelayMs ?? 2_000,
  };
  try {
    checkTracingOptions(options);
  } catch (error) {
    throw context.invalid('tracing', messageOf(error));
  }
  return options;
}
