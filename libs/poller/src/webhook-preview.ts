import type { WebhookProvider } from './webhook-signature';

/** WebhookPreviewRequest is what a verified delivery asks to preview: a branch at a commit, maybe for a pull request. */
export interface WebhookPreviewRequest {
  /** The branch name (without refs/heads/). */
  ref: string;
  revision?: string;
  pullRequest?: { number: number; url?: string; title?: string };
}

const commitPattern = /^[0-9a-f]{40}$/;
const zeroCommit = /^0{40}$/;
const previewedActions = new Set(['opened', 'synchronize', 'synchronized', 'reopened', 'open', 'update', 'reopen']);

/**
 * previewRequestOf reads, from a verified push or pull-request body, the branch to preview: a push
 * to a branch (not a tag, not a deletion), or a pull request opened or updated (GitHub, Gitea and
 * Gogs `pull_request`, GitLab `Merge Request Hook`). Anything else, or a field of the wrong shape,
 * gives undefined: the body is checked, never trusted.
 */
export function previewRequestOf(provider: WebhookProvider, event: 'push' | 'pull-request', body: unknown): WebhookPreviewRequest | undefined {
  if (!isObject(body)) return undefined;
  if (event === 'push') {
    const ref = text(body.ref);
    const after = text(body.after) ?? text(body.checkout_sha);
    if (!ref?.startsWith('refs/heads/') || (after && zeroCommit.test(after))) return undefined;
    return withRevision({ ref: ref.slice('refs/heads/'.length) }, after);
  }
  return provider === 'gitlab' ? mergeRequestOf(body) : pullRequestOf(body);
}

function pullRequestOf(body: Record<string, unknown>): WebhookPreviewRequest | undefined {
  const pull = body.pull_request;
  if (!isObject(pull) || !previewedActions.has(text(body.action) ?? '') || !isObject(pull.head)) return undefined;
  const ref = text(pull.head.ref);
  const number = typeof pull.number === 'number' ? pull.number : body.number;
  if (!ref || typeof number !== 'number') return undefined;
  return withRevision({ ref, pullRequest: pullRequestFields(number, pull.html_url, pull.title) }, text(pull.head.sha));
}

function mergeRequestOf(body: Record<string, unknown>): WebhookPreviewRequest | undefined {
  const merge = body.object_attributes;
  if (!isObject(merge) || !previewedActions.has(text(merge.action) ?? '')) return undefined;
  const ref = text(merge.source_branch);
  if (!ref || typeof merge.iid !== 'number') return undefined;
  const last = isObject(merge.last_commit) ? text(merge.last_commit.id) : undefined;
  return withRevision({ ref, pullRequest: pullRequestFields(merge.iid, merge.url, merge.title) }, last);
}

function pullRequestFields(number: number, url: unknown, title: unknown): WebhookPreviewRequest['pullRequest'] {
  const link = text(url);
  const name = text(title);
  return {
    number,
    ...(link && /^https?:\/\//.test(link) && link.length <= 2048 ? { url: link } : {}),
    ...(name ? { title: name.slice(0, 512) } : {}),
  };
}

function withRevision(request: WebhookPreviewRequest, revision: string | undefined): WebhookPreviewRequest | undefined {
  if (!Number.isInteger(request.pullRequest?.number ?? 1) || (request.pullRequest?.number ?? 1) < 1) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a ref may not hold.
  if (request.ref.length > 255 || /[\u0000-\u001f\u007f ~^:?*[\\]/.test(request.ref)) return undefined;
  return revision && commitPattern.test(revision) ? { ...request, revision } : request;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
