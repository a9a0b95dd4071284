import { describe, expect, it } from 'vitest';
import { previewRequestOf } from './webhook-preview';

const sha = 'a'.repeat(40);

describe('previewRequestOf', () => {
  it('reads a push to a branch, and ignores tags and deleted branches', () => {
    expect(previewRequestOf('github', 'push', { ref: 'refs/heads/feature/x', after: sha })).toEqual({ ref: 'feature/x', revision: sha });
    expect(previewRequestOf('gitea', 'push', { ref: 'refs/tags/v1', after: sha })).toBeUndefined();
    expect(previewRequestOf('github', 'push', { ref: 'refs/heads/gone', after: '0'.repeat(40) })).toBeUndefined();
  });

  it('reads a GitHub or Gitea pull request opened or updated, with its number, link and title', () => {
    const body = { action: 'synchronize', number: 12, pull_request: { number: 12, html_url: 'https://github.com/o/r/pull/12', title: 'Bigger pods', head: { ref: 'bigger', sha } } };
    expect(previewRequestOf('github', 'pull-request', body)).toEqual({ ref: 'bigger', revision: sha, pullRequest: { number: 12, url: 'https://github.com/o/r/pull/12', title: 'Bigger pods' } });
    expect(previewRequestOf('gitea', 'pull-request', { ...body, action: 'synchronized' })?.ref).toBe('bigger');
    expect(previewRequestOf('github', 'pull-request', { ...body, action: 'closed' })).toBeUndefined();
  });

  it('reads a GitLab merge request', () => {
    const body = { object_attributes: { action: 'update', iid: 3, url: 'https://gitlab.example/o/r/-/merge_requests/3', title: 'MR', source_branch: 'mr', last_commit: { id: sha } } };
    expect(previewRequestOf('gitlab', 'pull-request', body)).toEqual({ ref: 'mr', revision: sha, pullRequest: { number: 3, url: 'https://gitlab.example/o/r/-/merge_requests/3', title: 'MR' } });
  });

  it('checks every field it takes: no odd refs, no javascript: links, no commit that is not one', () => {
    const body = (ref: unknown, url: unknown, commit: unknown) => ({ action: 'opened', pull_request: { number: 1, html_url: url, head: { ref, sha: commit } } });
    expect(previewRequestOf('github', 'pull-request', body('a b', 'https://x', sha))).toBeUndefined();
    expect(previewRequestOf('github', 'pull-request', body('a\nb', 'https://x', sha))).toBeUndefined();
    expect(previewRequestOf('github', 'pull-request', body(['x'], 'https://x', sha))).toBeUndefined();
    expect(previewRequestOf('github', 'pull-request', body('ok', 'javascript:alert(1)', 'HEAD'))).toEqual({ ref: 'ok', pullRequest: { number: 1 } });
    expect(previewRequestOf('github', 'pull-request', { action: 'opened', pull_request: { number: -1, head: { ref: 'x' } } })).toBeUndefined();
  });
});
