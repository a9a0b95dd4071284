import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { TransientError } from '@tidemark/contracts';
import { OciSourceError } from './oci-source-error';

/** BoundedRequest is one request to a registry or its token service, with its limits. */
export interface BoundedRequest {
  method: 'GET' | 'HEAD';
  url: URL;
  headers: Record<string, string>;
  /** Most bytes of the body; a larger Content-Length or body is refused while it streams. */
  maxBytes: number;
  /** The whole request, body included. */
  timeoutMs: number;
  /** An extra CA (PEM) trusted besides the system's roots, for a registry with a private CA. */
  ca?: string;
  /** What the request is for, in messages: `source apps: manifest of tag v1`. */
  what: string;
  /** The failure code when the body passes maxBytes. @defaultValue 'OciTooLarge' */
  tooLargeCode?: string;
}

/** BoundedResponse is a response read whole (never more than the request's maxBytes). */
export interface BoundedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * boundedRequest sends one request and reads its body into memory, refusing a body past
 * `maxBytes` (by Content-Length before reading, or as the bytes arrive) and giving up after
 * `timeoutMs` for the whole exchange, so a slow or endless registry holds nothing for long.
 * It never follows a redirect: the caller decides where one may lead.
 */
export function boundedRequest(options: BoundedRequest): Promise<BoundedResponse> {
  const { url } = options;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const tls = url.protocol === 'https:' && options.ca ? { ca: [...rootCertificates, options.ca] } : {};
  return new Promise((resolve, reject) => {
    const request = send(url, { method: options.method, headers: { 'user-agent': 'tidemark', ...options.headers }, ...tls }, (response) => {
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (options.method !== 'HEAD' && declared > options.maxBytes) {
        request.destroy(tooLarge(options));
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.byteLength;
        if (bytes > options.maxBytes) request.destroy(tooLarge(options));
        else chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
    });
    const timer = setTimeout(() => request.destroy(new TransientError('OciTimeout', `${options.what}: ${url.origin} did not answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    function fail(error: unknown): void {
      clearTimeout(timer);
      reject(error instanceof OciSourceError || error instanceof TransientError ? error : new TransientError('OciUnreachable', `${options.what}: ${url.origin} could not be reached: ${causeOf(error)}`));
    }
    request.on('error', fail);
    request.end();
  });
}

function tooLarge(options: BoundedRequest): OciSourceError {
  return new OciSourceError(options.tooLargeCode ?? 'OciTooLarge', `${options.what}: the answer of ${options.url.origin} is larger than ${options.maxBytes} bytes and is refused`);
}

function causeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 200);
}
