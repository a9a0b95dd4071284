import { sendWithRetries, type HostRequest, type PostOptions, type PostResult } from './host-request';
import { authHeaders, checkTarget, repositoryPath } from './host-target';

export type { GitHostProvider, GitHostTarget } from './host-target';
import type { GitHostTarget } from './host-target';

/**
 * CommitStatusState is Tidemark's word; each provider's own word is chosen when it is sent.
 * `superseded`: a newer commit overtook this one before it was applied, so it has no verdict.
 */
export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error' | 'superseded';

/**
 * supersededState is each provider's word for "ended without a verdict". GitLab has `canceled`, and
 * Gitea `warning` (shown apart from failures). GitHub has only error/failure/pending/success: `error`
 * is the one that says the check did not run to a verdict (failure would blame the change itself,
 * success would claim it was applied, pending is what never ended).
 */
const supersededState = { gitea: 'warning', github: 'error', gitlab: 'canceled' } as const;

/** CommitStatus is one status on a commit: per cluster, `context` is e.g. `tidemark/production`. */
export interface CommitStatus {
  sha: string;
  state: CommitStatusState;
  context: string;
  description: string;
  targetUrl?: string;
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
  return sendWithRetries({ method: 'POST', ...request }, options);
}

/** buildRequest maps a status to the provider's endpoint, body and auth header, after checking its fields. */
function buildRequest(target: GitHostTarget, status: CommitStatus): Omit<HostRequest, 'method'> | { error: string } {
  if (!shaPattern.test(status.sha)) return { error: `"${status.sha.slice(0, 50)}" is not a commit id` };
  const checked = checkTarget(target);
  if ('error' in checked) return checked;
  if (status.targetUrl && !/^https?:\/\//.test(status.targetUrl)) return { error: 'targetUrl must be http(s)' };
  const { root } = checked;
  const description = status.description.slice(0, 140);
  if (target.provider === 'gitlab') {
    const state = { pending: 'pending', success: 'success', failure: 'failed', error: 'failed', superseded: supersededState.gitlab }[status.state];
    return {
      url: `${root}/projects/${encodeURIComponent(target.repository)}/statuses/${status.sha}`,
      headers: authHeaders(target),
      body: JSON.stringify({ state, name: status.context, description, ...(status.targetUrl ? { target_url: status.targetUrl } : {}) }),
    };
  }
  return {
    url: `${root}/repos/${repositoryPath(target)}/statuses/${status.sha}`,
    headers: authHeaders(target),
    body: JSON.stringify({ state: status.state === 'superseded' ? supersededState[target.provider] : status.state, context: status.context, description, ...(status.targetUrl ? { target_url: status.targetUrl } : {}) }),
  };
}
