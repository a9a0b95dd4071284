import { sendWithRetries, type PostOptions, type PostResult } from './host-request';
import { authHeaders, checkTarget, repositoryPath, type GitHostTarget } from './host-target';

/** PullRequestComment is one comment Tidemark keeps on a pull (merge) request, found again by its marker. */
export interface PullRequestComment {
  /** The pull request's number (GitLab: the merge request's iid). */
  number: number;
  /** The comment's markdown. The marker is added as its first line. */
  body: string;
  /** An id of this comment among Tidemark's (e.g. the source's name), kept in a hidden HTML comment. */
  marker: string;
}

/** CommentResult: whether the comment was created or updated, and its id on the host. */
export interface CommentResult extends PostResult {
  action?: 'created' | 'updated';
  commentId?: number;
}

// GitHub and GitLab cap comments at 65,536 characters; Gitea takes more, but a preview never needs it.
const maxBodyChars = 60_000;
// Pages of 100 comments looked through for the marker, at most.
const maxPages = 10;

interface HostComment { id: number; body?: string }

/**
 * upsertPullRequestComment keeps one comment per marker on a pull request: it looks for a
 * comment whose body carries `<!-- tidemark:<marker> -->` and edits it, or creates one. Like
 * postCommitStatus it retries 429 and 5xx, never throws and never names the token. A comment
 * with the marker that the token may not edit (someone copied the marker) is left, and a new
 * one is made.
 */
export async function upsertPullRequestComment(target: GitHostTarget, comment: PullRequestComment, options: PostOptions = {}): Promise<CommentResult> {
  const checked = checkTarget(target);
  if ('error' in checked) return { ok: false, attempts: 0, error: checked.error };
  if (!Number.isSafeInteger(comment.number) || comment.number < 1) return { ok: false, attempts: 0, error: `pull request number ${String(comment.number).slice(0, 20)} is not a positive integer` };
  if (!/^[A-Za-z0-9._:/-]{1,200}$/.test(comment.marker)) return { ok: false, attempts: 0, error: 'the marker must be letters, digits and ._:/- only' };
  const urls = commentUrls(target, checked.root, comment.number);
  const markerLine = `<!-- tidemark:${comment.marker} -->`;
  const body = JSON.stringify({ body: `${markerLine}\n${comment.body.slice(0, maxBodyChars)}` });
  const headers = authHeaders(target);
  const found = await findMarked(urls.list, headers, markerLine, options);
  if ('error' in found) return found.error;
  if (found.id !== undefined) {
    const updated = await sendWithRetries({ method: target.provider === 'gitlab' ? 'PUT' : 'PATCH', url: urls.one(found.id), headers, body }, options);
    if (updated.ok) return { ...updated, action: 'updated', commentId: found.id };
    if (updated.status !== 403 && updated.status !== 404) return updated;
  }
  const created = await sendWithRetries({ method: 'POST', url: urls.list, headers, body }, options, true);
  const id = (created.body as HostComment | undefined)?.id;
  const { body: _answer, ...result } = created;
  return created.ok ? { ...result, action: 'created', ...(typeof id === 'number' ? { commentId: id } : {}) } : result;
}

/** commentUrls: where a pull request's comments are listed and created, and where one is edited. */
function commentUrls(target: GitHostTarget, root: string, number: number): { list: string; one: (id: number) => string } {
  if (target.provider === 'gitlab') {
    const base = `${root}/projects/${encodeURIComponent(target.repository)}/merge_requests/${number}/notes`;
    return { list: base, one: (id) => `${base}/${id}` };
  }
  // Gitea and GitHub keep a pull request's conversation as its issue's comments.
  const repository = `${root}/repos/${repositoryPath(target)}`;
  return { list: `${repository}/issues/${number}/comments`, one: (id) => `${repository}/issues/comments/${id}` };
}

/** findMarked pages through the comments for the first one carrying the marker line. */
async function findMarked(listUrl: string, headers: Record<string, string>, markerLine: string, options: PostOptions): Promise<{ id?: number } | { error: CommentResult }> {
  // Gitea's list is not paged (every page is the whole list): a page with no comment not seen before ends it.
  const seen = new Set<number>();
  for (let page = 1; page <= maxPages; page += 1) {
    const listed = await sendWithRetries({ method: 'GET', url: `${listUrl}?page=${page}&per_page=100`, headers }, options, true);
    if (!listed.ok) return { error: { ok: false, attempts: listed.attempts, ...(listed.status ? { status: listed.status } : {}), error: `cannot list the pull request's comments: ${listed.error ?? 'no answer'}` } };
    const comments = Array.isArray(listed.body) ? listed.body as HostComment[] : [];
    const marked = comments.find((entry) => typeof entry.id === 'number' && typeof entry.body === 'string' && entry.body.startsWith(markerLine));
    if (marked) return { id: marked.id };
    const before = seen.size;
    for (const entry of comments) seen.add(entry.id);
    if (seen.size === before) return {};
  }
  return {};
}
