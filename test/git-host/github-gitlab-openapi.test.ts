// GitHub's and GitLab's APIs cannot be run here, so the real client code (postCommitStatus,
// upsertPullRequestComment) talks over real HTTP to loopback stand-ins (host-stand-in.ts) that check
// every request against the host's own published OpenAPI description, copied unchanged:
//   GitHub  github-openapi-subset.json  github/rest-api-description, descriptions/api.github.com/
//           api.github.com.2022-11-28.json at 1e9ee981 (OpenAPI 3.0.3, version 1.1.4): statuses, issue comments
//   GitLab  gitlab-openapi-subset.json  GitLab's doc/api/openapi/openapi_v2.yaml at 38605be5 (Swagger 2.0):
//           commit statuses, and the PRIVATE-TOKEN header
//           gitlab-openapi-v3-subset.json  GitLab's doc/api/openapi/openapi_v3.yaml at 07fbd7ab (OpenAPI 3.0.0):
//           merge-request notes (list, create, update), which openapi_v2.yaml does not have
// Checked: method, path template, path and query parameters, the body (required fields, enum, types,
// maxLength where given, no field the schema lacks), the content type, and the token header (GitLab's from
// openapi_v2.yaml; GitHub's "Bearer" from its docs, its description names none). Gitea is tested against
// a real Gitea (gitea.test.ts). The last tests send what the descriptions forbid, to show the checks bite.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postCommitStatus, upsertPullRequestComment, type CommitStatusState, type GitHostTarget } from '@tidemark/git-host';
import { startHostStandIn, type HostStandIn, type StandInProvider } from './host-stand-in';

const token = 'host-token-that-must-never-show-4242';
const sha = 'd'.repeat(40);
const hosts: Partial<Record<StandInProvider, HostStandIn>> = {};
const states: CommitStatusState[] = ['pending', 'success', 'failure', 'error', 'superseded'];
const providerWords = { github: ['pending', 'success', 'failure', 'error', 'error'], gitlab: ['pending', 'success', 'failed', 'failed', 'canceled'] };

beforeAll(async () => {
  [hosts.github, hosts.gitlab] = await Promise.all([startHostStandIn('github', token), startHostStandIn('gitlab', token)]);
});
afterAll(async () => {
  await Promise.all(Object.values(hosts).map((host) => host.stop()));
});
beforeEach(() => {
  for (const host of Object.values(hosts)) host.problems.length = 0;
});

const targetOf = (host: HostStandIn, repository: string): GitHostTarget => ({ provider: host.provider === 'github' ? 'github' : 'gitlab', apiUrl: host.apiUrl, repository, token });

describe.each(['github', 'gitlab'] as const)('the %s client against its published description', (provider) => {
  it('sets every commit status in the host\'s own word, each request as the description asks', async () => {
    const host = hosts[provider]!;
    for (const state of states) {
      const result = await postCommitStatus(targetOf(host, 'shop/deploy'), { sha, state, context: 'tidemark/east', description: `${state} on east`, targetUrl: 'https://tidemark.example/objects?cluster=east' });
      expect(result).toMatchObject({ ok: true, attempts: 1 });
    }
    const recorded = host.statusesOf('shop', 'deploy', sha).reverse();
    expect(recorded.map((status) => status.state)).toEqual(providerWords[provider]);
    expect(recorded[0]).toMatchObject({ context: 'tidemark/east', description: 'pending on east', target_url: 'https://tidemark.example/objects?cluster=east' });
    expect(host.problems).toEqual([]);
  });

  it('keeps one comment per marker on a pull request: created, then edited in place', async () => {
    const host = hosts[provider]!;
    host.openPullRequest('shop', 'deploy', 12);
    const target = targetOf(host, 'shop/deploy');
    const first = await upsertPullRequestComment(target, { number: 12, body: '### Preview\n1 changed', marker: 'preview:shop' });
    const second = await upsertPullRequestComment(target, { number: 12, body: '### Preview\n2 changed', marker: 'preview:shop' });
    // The description's verdict first: a wrong method or field shows here by name, before what it breaks.
    expect(host.problems).toEqual([]);
    expect(first).toMatchObject({ ok: true, action: 'created' });
    expect(second).toMatchObject({ ok: true, action: 'updated', commentId: first.commentId });
    const thread = host.commentsOf('shop', 'deploy', 12);
    expect(thread.map((comment) => comment.body)).toEqual(['<!-- tidemark:preview:shop -->\n### Preview\n2 changed']);
    expect(JSON.stringify([first, second])).not.toContain(token);
  });
});

describe('the stand-ins refuse what the published descriptions forbid', () => {
  const send = (host: HostStandIn, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const auth: Record<string, string> = host.provider === 'github' ? { authorization: `Bearer ${token}` } : { 'private-token': token };
    return fetch(`${host.apiUrl}${path}`, { method, headers: { 'content-type': 'application/json', ...auth, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  };

  it('GitHub: a state GitLab says, a field GitLab names, a wrong path, a wrong method, a number that is not one', async () => {
    const github = hosts.github!;
    await send(github, 'POST', `/repos/shop/deploy/statuses/${sha}`, { state: 'failed', name: 'tidemark/east' });
    await send(github, 'POST', `/repos/shop/deploy/commits/${sha}/statuses`, { state: 'pending' });
    await send(github, 'PUT', '/repos/shop/deploy/issues/comments/1', { body: 'x' });
    await send(github, 'GET', '/repos/shop/deploy/issues/twelve/comments?per_page=many');
    expect(github.problems).toEqual([
      'POST /repos/{owner}/{repo}/statuses/{sha}: the body.state "failed" is not one of error, failure, pending, success',
      'POST /repos/{owner}/{repo}/statuses/{sha}: the body: name is not a field of the schema',
      `POST /repos/shop/deploy/commits/${sha}/statuses is not an operation Tidemark should call`,
      'PUT /repos/shop/deploy/issues/comments/1 is not an operation Tidemark should call',
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments: path parameter issue_number "twelve" is not a number',
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments: query parameter per_page "many" is not a number',
    ]);
  });

  it('GitLab: a state GitHub says, no state, the token in the query, a note as `note`, a PATCH, a text body, a bad filter', async () => {
    const gitlab = hosts.gitlab!;
    gitlab.openPullRequest('group', 'shop', 3);
    await send(gitlab, 'POST', `/projects/group%2Fshop/statuses/${sha}`, { state: 'failure', context: 'tidemark/east' });
    await send(gitlab, 'POST', `/projects/group%2Fshop/statuses/${sha}?private_token=${token}`, { name: 'tidemark/east' });
    await send(gitlab, 'POST', '/projects/group%2Fshop/merge_requests/3/notes', { note: 'x' });
    await send(gitlab, 'PUT', '/projects/group%2Fshop/merge_requests/3/notes/1', { note: 'x' });
    await send(gitlab, 'PATCH', '/projects/group%2Fshop/merge_requests/3/notes/1', { body: 'x' });
    await send(gitlab, 'POST', '/projects/group%2Fshop/merge_requests/3/notes', { body: 'x' }, { 'content-type': 'text/plain' });
    await send(gitlab, 'GET', '/projects/group%2Fshop/merge_requests/three/notes?sort=newest');
    expect(gitlab.problems).toEqual([
      'POST /api/v4/projects/{id}/statuses/{sha}: the body.state "failure" is not one of pending, running, success, failed, canceled, skipped',
      'POST /api/v4/projects/{id}/statuses/{sha}: query parameter private_token is not in the description',
      'POST /api/v4/projects/{id}/statuses/{sha}: the body: state is required',
      'POST /api/v4/projects/{id}/statuses/{sha}: the token is in the query string, where logs keep it',
      'POST /api/v4/projects/{id}/merge_requests/{noteable_id}/notes: the body: body is required',
      'POST /api/v4/projects/{id}/merge_requests/{noteable_id}/notes: the body: note is not a field of the schema',
      'PUT /api/v4/projects/{id}/merge_requests/{noteable_id}/notes/{note_id}: the body: note is not a field of the schema',
      'PATCH /api/v4/projects/group%2Fshop/merge_requests/3/notes/1 is not an operation Tidemark should call',
      'POST /api/v4/projects/{id}/merge_requests/{noteable_id}/notes: content-type "text/plain" is not application/json',
      'GET /api/v4/projects/{id}/merge_requests/{noteable_id}/notes: path parameter noteable_id "three" is not a number',
      'GET /api/v4/projects/{id}/merge_requests/{noteable_id}/notes: query parameter sort "newest" is not one of asc, desc',
    ]);
  });
});
