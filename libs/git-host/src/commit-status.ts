/** GitHostProvider names the API a host speaks. Forgejo speaks Gitea's. */
export type GitHostProvider = 'gitea' | 'github' | 'gitlab';

/** GitHostTarget is one repository on one host, and the token to write statuses with (from a Secret). */
export interface GitHostTarget {
  provider: GitHostProvider;
  /** The API's base, e.g. https://gitea.example/api/v1, https://api.github.com, https://gitlab.example/api/v4. */
  apiUrl: string;
  /** `owner/name`; for GitLab the project's path `group/name` (or its numeric id). */
  repository: string;
  token: string;
}

/** CommitStatusState is Tidemark's word; each provider's own word is chosen when it is sent. */
export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error';

/** CommitStatus is one status on a commit: per cluster, `context` is e.g. `tidemark/production`. */
export interface CommitStatus {
  sha: string;
  state: CommitStatusState;
  context: string;
  description: string;
  targetUrl?: string;
}

/** PostOptions bound the work of one post. */
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

/** PostResult says whether the host took the status; `error` never holds the token. */
export interface PostResult {
  ok: boolean;
  attempts: number;
  status?: number;
  error?: string;
}

const shaPattern = /^[0-9a-f]{40}$/;

/**
 * postCommitStatus sets one commit status, retrying what a retry can fix (429, 5xx, network
 * errors) with exponential backoff and the host's Retry-After, up to `attempts`. It never throws:
 * reporting to a Git host must never block or fail a reconcile, so the caller logs the result.
 */
export async function postCommitStatus(target: GitHostTarget, status: CommitStatus, options: PostOptions = {}): Promise<PostResult> {
  const request = buildRequest(target, status);
  if ('error' in request) return { ok: false, attempts: 0, error: request.error };
  const attempts = options.attempts ?? 4;
  let last: PostResult = { ok: false, attempts: 0 };
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const { result, retryAfterMs } = await sendOnce(request, options.timeoutMs ?? 10_000, attempt);
    last = result;
    if (result.ok || retryAfterMs === undefined || attempt === attempts) return last;
    const backoff = Math.min((options.baseDelayMs ?? 500) * 2 ** (attempt - 1), options.maxDelayMs ?? 30_000);
    await wait(Math.min(Math.max(retryAfterMs, backoff), options.maxDelayMs ?? 30_000), options.signal);
  }
  return last;
}

interface HostRequest { url: string; headers: Record<string, string>; body: string }

/** buildRequest maps a status to the provider's endpoint, body and auth header, after checking its fields. */
function buildRequest(target: GitHostTarget, status: CommitStatus): HostRequest | { error: string } {
  if (!shaPattern.test(status.sha)) return { error: `"${status.sha.slice(0, 50)}" is not a commit id` };
  let base: URL;
  try {
    base = new URL(target.apiUrl);
  } catch {
    return { error: `apiUrl "${target.apiUrl.slice(0, 100)}" is not a URL` };
  }
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && /^(127\.|localhost$|\[::1\]$)/.test(base.hostname))) return { error: 'apiUrl must use https (http only on loopback)' };
  const segments = target.repository.split('/');
  const pathLike = segments.length >= 2 && segments.every((segment) => /^[A-Za-z0-9._-]+$/.test(segment) && !/^\.+$/.test(segment));
  if (!pathLike && !/^\d+$/.test(target.repository)) return { error: `repository "${target.repository.slice(0, 100)}" is not owner/name` };
  if (status.targetUrl && !/^https?:\/\//.test(status.targetUrl)) return { error: 'targetUrl must be http(s)' };
  const root = target.apiUrl.replace(/\/+$/, '');
  const description = status.description.slice(0, 140);
  const json = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'tidemark' };
  if (target.provider === 'gitlab') {
    const state = { pending: 'pending', success: 'success', failure: 'failed', error: 'failed' }[status.state];
    return {
      url: `${root}/projects/${encodeURIComponent(target.repository)}/statuses/${status.sha}`,
      headers: { ...json, 'private-token': target.token },
      body: JSON.stringify({ state, name: status.context, description, ...(status.targetUrl ? { target_url: status.targetUrl } : {}) }),
    };
  }
  const [owner, ...name] = target.repository.split('/');
  return {
    url: `${root}/repos/${encodeURIComponent(owner!)}/${encodeURIComponent(name.join('/'))}/statuses/${status.sha}`,
    // Gitea documents "token <t>"; GitHub takes "Bearer <t>".
    headers: { ...json, authorization: target.provider === 'gitea' ? `token ${target.token}` : `Bearer ${target.token}` },
    body: JSON.stringify({ state: status.state, context: status.context, description, ...(status.targetUrl ? { target_url: status.targetUrl } : {}) }),
  };
}

async function sendOnce(request: HostRequest, timeoutMs: number, attempt: number): Promise<{ result: PostResult; retryAfterMs?: number }> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    return { result: { ok: false, attempts: attempt, error: `cannot reach the Git host: ${reason}` }, retryAfterMs: 0 };
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
