import { isIP } from 'node:net';

/** TracingOptions say where spans go: an OTLP/HTTP (JSON) traces endpoint, and how much is sent. */
export interface TracingOptions {
  /** The OTLP/HTTP traces URL, e.g. https://collector:4318/v1/traces. https, or http to loopback only. */
  endpoint: string;
  /** Headers on every export (an API key); values come from a Secret or the environment, never the config file. @defaultValue none */
  headers?: Readonly<Record<string, string>>;
  /** Share of new traces recorded, 0 to 1; a trace started elsewhere keeps its own decision. @defaultValue 1 */
  samplingRatio?: number;
  /** service.name of every span: the process's role is added as tidemark.role. @defaultValue 'tidemark' */
  serviceName?: string;
  /** tidemark.role on every span (all, poller or worker). @defaultValue none */
  role?: string;
  /** Time for one export request. @defaultValue 10_000 */
  exportTimeoutMs?: number;
  /** Spans kept waiting for export; more are dropped, never kept in memory without bound. @defaultValue 2048 */
  maxQueuedSpans?: number;
  /** How long finished spans wait to be sent in one batch. @defaultValue 2_000 */
  batchDelayMs?: number;
}

/** TracingOptionsError is a tracing setting that cannot be used; the message names the setting. */
export class TracingOptionsError extends Error {
  readonly code = 'TracingOptionsInvalid';
  constructor(message: string) {
    super(message);
    this.name = 'TracingOptionsError';
  }
}

/** checkTracingOptions refuses an endpoint that is not https (or http to loopback), carries credentials, or a ratio outside 0..1. */
export function checkTracingOptions(options: TracingOptions): void {
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    throw new TracingOptionsError('tracing.endpoint is not a URL');
  }
  if (url.username || url.password) throw new TracingOptionsError('tracing.endpoint must not carry credentials: give them as tracing.headers');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new TracingOptionsError(`tracing.endpoint must be https (http only to loopback); got ${url.protocol}//${url.host}`);
  }
  const ratio = options.samplingRatio ?? 1;
  if (!(ratio >= 0 && ratio <= 1)) throw new TracingOptionsError(`tracing.samplingRatio must be between 0 and 1; got ${ratio}`);
  for (const name of Object.keys(options.headers ?? {})) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new TracingOptionsError(`tracing.headers: "${name.slice(0, 64)}" is not a header name`);
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
