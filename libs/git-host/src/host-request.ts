import { messageOf } from '@tidemark/contracts';
/** PostOptions bound the work of one request to a Git host. */
export interface PostOptions {
  /** Attempts in all, the first included. @defaultValue 4 */
  attempts?: number;
  /** First wait between attempts, doubled each time; a Retry-After header wins (up to maxDelayMs). @defaultValue 500 */
  baseDelayMs?: number;
  /** @defaultValue 30_000 */
  maxDelayMs?: number;
  /** Time for one request. @defaultValue 10_000 */
  timeoutMs?: number;
  /** Ends the waits between attempts early (on shutdown); the attempt in flight still finishes. @defaultValue none */
  signal?: AbortSignal;
}

/** PostResult says whether the host took the request; `error` never holds the token. `body` is the JSON answer when asked for. */
export interface PostResult {
  ok: boolean;
  attempts: number;
  status?: number;
  error?: string;
  body?: unknown;
}


/** HostRequest is one HTTP request to a Git host's API, its token already in the headers. */
export interface HostRequest { method: string; url: string; headers: Record<string, string>; body?: string }

/**
 * sendWithRetries sends a request, retrying what a retry can fix (429, 5xx, GitHub's exhausted rate
 * limit, network errors) with exponential backoff and the host's Retry-After, up to `attempts`. It
 * never throws and never names the token; with `readBody` it parses a successful JSON answer.
 */
export async function sendWithRetries(request: HostRequest, options: PostOptions = {}, readBody = false): Promise<PostResult> {
  const attempts = options.attempts ?? 4;
  let last: PostResult = { ok: false, attempts: 0 };
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const { result, retryAfterMs } = await sendOnce(request, options.timeoutMs ?? 10_000, attempt, readBody);
    last = result;
    if (result.ok || retryAfterMs === undefined || attempt === attempts || options.signal?.aborted) return last;
    const backoff = Math.min((options.baseDelayMs ?? 500) * 2 ** (attempt - 1), options.maxDelayMs ?? 30_000);
    await wait(Math.min(Math.max(retryAfterMs, backoff), options.maxDelayMs ?? 30_000), options.signal);
  }
  return last;
}

async function sendOnce(request: HostRequest, timeoutMs: number, attempt: number, readBody: boolean): Promise<{ result: PostResult; retryAfterMs?: number }> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }), redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : messageOf(error);
    return { result: { ok: false, attempts: attempt, error: `cannot reach the Git host: ${reason}` }, retryAfterMs: 0 };
  }
  if (response.ok && readBody) {
    const body = await response.json().catch(() => undefined);
    return { result: { ok: true, attempts: attempt, status: response.status, body } };
  }
  await response.body?.cancel();
  if (response.ok) return { result: { ok: true, attempts: attempt, status: response.status } };
  const result = { ok: false, attempts: attempt, status: response.status, error: `the Git host answered HTTP ${response.status}` };
  const retryable = response.status === 429 || response.status >= 500 || (response.status === 403 && response.headers.get('x-ratelimit-remaining') === '0');
  return retryable ? { result, retryAfterMs: retryAfter(response.headers) } : { result };
}

/** retryAfter reads Retry-After (seconds or a date) or GitHub's x-ratelimit-reset (epoch seconds). */
function retryAfter(headers: Headers): number {
  const after = headers.get('retry-after');
  if (after && /^\d+$/.test(after)) return Number(after) * 1000;
  if (after && !Number.isNaN(Date.parse(after))) return Math.max(0, Date.parse(after) - Date.now());
  const reset = headers.get('x-ratelimit-reset');
  return reset && /^\d+$/.test(reset) ? Math.max(0, Number(reset) * 1000 - Date.now()) : 0;
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
