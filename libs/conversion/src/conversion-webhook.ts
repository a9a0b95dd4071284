import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KindRegistry } from '@tidemark/kinds';
import { caBundleOf, defaultRotationPolicy, rotateCertificates, type CertificateState, type RotationPolicy, type RotationStep } from './certificate-rotation';
import { convertReview } from './convert-review';
import { messageOf } from '@tidemark/contracts';

/** ConversionWebhookOptions configure the server; the API servers must reach it at `hosts`. */
export interface ConversionWebhookOptions {
  kinds: KindRegistry;
  /** Address to listen on. @defaultValue 0.0.0.0 */
  host?: string;
  /** Port to listen on; 0 picks a free one. @defaultValue 9443 */
  port?: number;
  /** DNS names and IPs the serving certificate covers (the Service's DNS names, or 127.0.0.1). */
  certificateHosts: readonly string[];
  /** @defaultValue defaultRotationPolicy (CA one year, serving certificate 30 days) */
  rotation?: RotationPolicy;
  /**
   * Largest review body accepted; a larger one is answered 413 without being read. A review holds
   * the objects one request converts: one object (at most the API server's 1.5 MiB request limit)
   * for a get or a write, every listed object for a list at another version. Raise it only for
   * unpaginated lists at a deprecated version that exceed it. @defaultValue 3 MiB
   */
  bodyLimitBytes?: number;
  /**
   * Reviews handled at once (their bodies read, converted, answered); more are answered 429 with
   * Retry-After, which the API server's webhook client retries with backoff. @defaultValue 32
   */
  maxConcurrentReviews?: number;
  /** Time to receive a whole review; the API server itself gives up after 30 s. @defaultValue 30_000 */
  requestTimeoutMs?: number;
  /**
   * How long an idle kept-alive connection stays open. It must outlast the API server's own idle
   * timeout (Go's 90 s): if the server closes first, a review the API server sends on that
   * connection as it closes fails with EOF, and the user's request gets a 500.
   * @defaultValue 120_000
   */
  keepAliveTimeoutMs?: number;
  /** Called for a review that failed, with a message that names the object (never its data). */
  onFailure?(message: string): void;
}

/** Longer than Go's http.Transport IdleConnTimeout (90 s), which the API server's webhook client keeps. */
const defaultKeepAliveTimeoutMs = 120_000;
/** Two of the API server's largest objects (1.5 MiB), with the review around them. */
export const defaultReviewBodyLimitBytes = 3 * 1024 * 1024;
export const defaultMaxConcurrentReviews = 32;
const defaultRequestTimeoutMs = 30_000;

/** ReviewTooLarge is a review body over the limit: answered 413. */
class ReviewTooLarge extends Error {}

/** conversionPath is where the webhook answers ConversionReviews. */
export const conversionPath = '/convert';

/**
 * ConversionWebhook serves the kinds' conversions over HTTPS with a certificate it creates and
 * renews itself (`rotate`); `caBundle` is what the CRDs must trust. Construction does nothing;
 * `start` listens and `stop` closes.
 */
export class ConversionWebhook {
  private server: Server | undefined;
  private state: CertificateState | undefined;
  private inFlight = 0;

  constructor(private readonly options: ConversionWebhookOptions) {
    if (options.certificateHosts.length === 0) throw new Error('ConversionWebhook needs at least one certificate host: the name or IP the API servers call it at');
    for (const [name, value] of [['bodyLimitBytes', options.bodyLimitBytes], ['maxConcurrentReviews', options.maxConcurrentReviews], ['requestTimeoutMs', options.requestTimeoutMs]] as const) {
      if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`ConversionWebhook ${name} must be a positive whole number, not ${value}`);
    }
  }

  /** start creates the certificates (or takes `initial`, e.g. from a shared store) and listens; it returns the port. */
  async start(initial?: CertificateState, now = new Date()): Promise<number> {
    if (initial) this.state = initial;
    else await this.rotate(now);
    const state = this.state!;
    // A review must arrive whole within requestTimeoutMs (a body sent slowly holds one of the few
    // review slots), checked every second. Node applies these timeouts only to a request under
    // way, never to an idle kept-alive connection, so they do not shorten keepAliveTimeout.
    const requestTimeout = this.options.requestTimeoutMs ?? defaultRequestTimeoutMs;
    this.server = createServer({
      key: state.serving.keyPem, cert: state.serving.certPem, minVersion: 'TLSv1.2',
      requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout),
    }, (request, response) => void this.handle(request, response));
    const server = this.server;
    server.keepAliveTimeout = this.options.keepAliveTimeoutMs ?? defaultKeepAliveTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 9443, this.options.host ?? '0.0.0.0', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  /**
   * rotate renews what is due (see rotateCertificates) and loads a new serving certificate
   * into the running server. After a `trust` or `created` step, publish `caBundle` to the
   * CRDs before the next call: that call may start serving a certificate of the new CA.
   */
  async rotate(now = new Date(), force?: 'ca' | 'serving'): Promise<RotationStep> {
    const { state, step } = await rotateCertificates(this.state, this.options.certificateHosts, now, this.options.rotation ?? defaultRotationPolicy, force);
    this.useCertificates(state);
    return step;
  }

  /** useCertificates takes certificates rotated elsewhere (another replica, through a shared store). */
  useCertificates(state: CertificateState): void {
    const changed = this.state?.serving.certPem !== state.serving.certPem;
    this.state = state;
    if (changed && this.server) {
      this.server.setSecureContext({ key: state.serving.keyPem, cert: state.serving.certPem });
      // Kept-alive connections would go on with the old certificate; new ones get the new one.
      this.server.closeIdleConnections();
    }
  }

  /** certificates is the current state, to share through a store. */
  certificates(): CertificateState | undefined {
    return this.state;
  }

  /** caBundle is the base64 PEM of the CAs the API servers must trust now. */
  caBundle(): string {
    if (!this.state) throw new Error('ConversionWebhook has no certificates yet; call start first');
    return caBundleOf(this.state);
  }

  /** servingCertificate is the PEM certificate being served (for tests and diagnostics). */
  servingCertificate(): string | undefined {
    return this.state?.serving.certPem;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** refusal answers a request that is not a review, too large a one, or one over the concurrency, before its body is read. */
  private refusal(request: IncomingMessage): Refusal | undefined {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== conversionPath) return { status: 404, message: `POST ConversionReviews to ${conversionPath}` };
    const limit = this.options.bodyLimitBytes ?? defaultReviewBodyLimitBytes;
    const maxConcurrent = this.options.maxConcurrentReviews ?? defaultMaxConcurrentReviews;
    // The connection is closed, so the refused body is never read.
    if (Number(request.headers['content-length'] ?? 0) > limit) return { status: 413, message: tooLarge(limit), headers: { connection: 'close' } };
    if (this.inFlight >= maxConcurrent) {
      return { status: 429, message: `the conversion webhook is converting ${maxConcurrent} reviews already; retry shortly`, headers: { 'retry-after': '1', connection: 'close' } };
    }
    return undefined;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    const refused = this.refusal(request);
    if (refused) return reply(refused.status, { message: refused.message }, refused.headers);
    const limit = this.options.bodyLimitBytes ?? defaultReviewBodyLimitBytes;
    this.inFlight += 1;
    try {
      const review = convertReview(JSON.parse(await readBody(request, limit)), this.options.kinds);
      if (review.response?.result.status === 'Failure') this.options.onFailure?.(review.response.result.message ?? 'conversion failed');
      reply(200, review);
    } catch (error) {
      const message = messageOf(error);
      this.options.onFailure?.(message);
      if (error instanceof ReviewTooLarge) reply(413, { message }, { connection: 'close' });
      else reply(400, { message });
    } finally {
      this.inFlight -= 1;
    }
  }
}

interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

function tooLarge(limit: number): string {
  return `the review is larger than ${limit} bytes (the conversion webhook's bodyLimitBytes)`;
}

async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ReviewTooLarge(tooLarge(limit));
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
