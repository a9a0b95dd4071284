import { STATUS_CODES } from 'node:http';
import http from 'isomorphic-git/http/node';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { TerminalError, TransientError } from '@tidemark/contracts';
import { sourceTooLarge } from './pack-size-guard';

/** GitHttpBounds bound every request Tidemark makes to a Git server. */
export interface GitHttpBounds {
  /** The source, for messages. */
  source: string;
  /** Redirects one request may follow, each within the origin of the source's URL. @defaultValue 3 */
  maxRedirects?: number;
  /** Time one request may take, from sending it to the last byte of its answer. @defaultValue 120000 */
  requestTimeoutMs?: number;
  /** Bytes a ref advertisement (the answer to discovery) may hold. @defaultValue 16 MiB */
  maxAdvertisementBytes?: number;
}

export const defaultGitHttpBounds = Object.freeze({ maxRedirects: 3, requestTimeoutMs: 120_000, maxAdvertisementBytes: 16 * 1024 * 1024 });

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * boundedHttp is the HTTP client of every Git request. It follows a redirect only within the
 * origin (scheme, host and port) of the request, so a credential (Authorization or any extra
 * header) never reaches another server and an https source never drops to http; it ends every
 * request at a deadline; it caps a ref advertisement; and no text a server chose (a body, a
 * status line) reaches isomorphic-git's error messages, so none reaches a status or a log.
 */
export function boundedHttp(bounds: GitHttpBounds, base: HttpClient = http): HttpClient {
  const limits = { ...defaultGitHttpBounds, ...bounds };
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const origin = new URL(request.url).origin;
      let next = request;
      for (let redirects = 0; ; redirects += 1) {
        const answer = await timedRequest(base, next, limits);
        const location = answer.response.headers?.location;
        if (!redirectStatuses.has(answer.response.statusCode) || !location) return checked(next, answer, limits);
        answer.abort();
        const target = new URL(location, next.url);
        if (target.origin !== origin) {
          throw new TerminalError('GitRedirectRefused', `Source ${limits.source}: the server answered HTTP ${answer.response.statusCode} to another origin; Tidemark follows redirects only within the source URL's origin. Point the source at the repository's final URL.`);
        }
        if (redirects >= limits.maxRedirects) {
          throw new TerminalError('GitRedirectRefused', `Source ${limits.source}: the server redirected more than ${limits.maxRedirects} times. Point the source at the repository's final URL.`);
        }
        next = redirected(next, answer.response.statusCode, target.href);
      }
    },
  };
}

interface TimedAnswer {
  response: GitHttpResponse;
  /** abort ends the request (its socket) now. */
  abort: () => void;
  signal: AbortSignal;
}

/** timedRequest sends one request (no redirects followed) under a deadline that also covers its body. */
async function timedRequest(base: HttpClient, request: GitHttpRequest, limits: Required<GitHttpBounds>): Promise<TimedAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TransientError('GitTimeout', `Source ${limits.source}: the Git server did not answer within ${limits.requestTimeoutMs / 1000} s.`)), limits.requestTimeoutMs);
  timer.unref();
  const signal = request.signal ? AbortSignal.any([request.signal as AbortSignal, controller.signal]) : controller.signal;
  const aborted = abortedPromise(signal);
  const abort = () => {
    clearTimeout(timer);
    controller.abort(new Error('request finished'));
  };
  try {
    const response = await Promise.race([
      base.request({ ...request, signal, fetchOptions: { followRedirects: false } } as GitHttpRequest & { fetchOptions: object }),
      aborted,
    ]);
    return { response: { ...response, ...(response.body ? { body: untilDeadline(response.body, aborted, () => clearTimeout(timer)) } : {}) }, abort, signal };
  } catch (error) {
    clearTimeout(timer);
    throw signal.aborted ? signal.reason : error;
  }
}

function abortedPromise(signal: AbortSignal): Promise<never> {
  const promise = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  promise.catch(() => undefined);
  return promise;
}

/** untilDeadline yields the body's chunks until it ends or the request's deadline passes. */
async function* untilDeadline(body: AsyncIterableIterator<Uint8Array>, aborted: Promise<never>, done: () => void): AsyncIterableIterator<Uint8Array> {
  try {
    for (;;) {
      // The Node client drops a stream error that comes between reads; the race still ends the read.
      const step = await Promise.race([body.next(), aborted]);
      if (step.done) return;
      yield step.value;
    }
  } finally {
    done();
  }
}

/** checked hands isomorphic-git an answer it may quote: a Git answer, or a status without the server's text. */
function checked(request: GitHttpRequest, answer: TimedAnswer, limits: Required<GitHttpBounds>): GitHttpResponse {
  const { response } = answer;
  if (response.statusCode !== 200) {
    // isomorphic-git copies the body into its error; the status code says enough.
    answer.abort();
    return { ...response, statusMessage: STATUS_CODES[response.statusCode] ?? '', body: emptyBody() };
  }
  if (!isDiscovery(request)) return response;
  const contentType = String(response.headers?.['content-type'] ?? '');
  if (!contentType.startsWith('application/x-git-upload-pack-advertisement')) {
    answer.abort();
    throw new TerminalError('NotGitServer', `Source ${limits.source}: not a Git server (content-type ${describeContentType(contentType)} where a Git server answers application/x-git-upload-pack-advertisement). Check the source's URL.`);
  }
  return response.body ? { ...response, body: capped(response.body, limits, answer.abort) } : response;
}

async function* capped(body: AsyncIterableIterator<Uint8Array>, limits: Required<GitHttpBounds>, abort: () => void): AsyncIterableIterator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > limits.maxAdvertisementBytes) {
      abort();
      throw sourceTooLarge(limits.source, `the server's list of refs is more than ${Math.round(limits.maxAdvertisementBytes / (1024 * 1024))} MiB`);
    }
    yield chunk;
  }
}

/** describeContentType shows a media type only when it looks like one: it is the server's text. */
function describeContentType(contentType: string): string {
  const type = /^[\w.+-]{1,40}\/[\w.+-]{1,60}/.exec(contentType)?.[0];
  return type ?? 'none';
}

function isDiscovery(request: GitHttpRequest): boolean {
  return (request.method ?? 'GET').toUpperCase() === 'GET' && new URL(request.url).pathname.endsWith('/info/refs');
}

/** redirected is the request to send after a redirect, as curl and RFC 9110 turn it (same origin: headers stay). */
function redirected(previous: GitHttpRequest, statusCode: number, url: string): GitHttpRequest {
  const method = (previous.method ?? 'GET').toUpperCase();
  if ((statusCode === 303 && method !== 'GET' && method !== 'HEAD') || (method === 'POST' && (statusCode === 301 || statusCode === 302))) {
    const headers = Object.fromEntries(Object.entries(previous.headers ?? {}).filter(([name]) => !['content-length', 'content-type'].includes(name.toLowerCase())));
    const { body: _body, ...rest } = previous;
    return { ...rest, url, method: 'GET', headers };
  }
  if (previous.body && !Array.isArray(previous.body)) {
    throw new TransientError('GitRedirectRefused', `the server answered HTTP ${statusCode} to a streamed request, which cannot be sent again`);
  }
  return { ...previous, url };
}

async function* emptyBody(): AsyncIterableIterator<Uint8Array> {
  // Nothing: the server's text stays out of every message.
}
