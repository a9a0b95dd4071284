// The checker itself (openapi-check.ts), as pure functions over the three hosts' descriptions copied
// beside it: Swagger 2.0 (Gitea, GitLab) and OpenAPI 3.0 (GitHub), $refs to parameters and
// definitions, the rules the stand-ins rely on to catch a wrong request.
import { describe, expect, it } from 'vitest';
import { ApiDescription, checkValue, type CheckedRequest } from './openapi-check';

const load = (file: string) => ApiDescription.load(new URL(`./${file}`, import.meta.url));
const gitea = load('gitea-openapi-subset.json');
const github = load('github-openapi-subset.json');
const gitlab = load('gitlab-openapi-subset.json');
const sha = 'a'.repeat(40);
const request = (method: string, path: string, body?: unknown, headers: CheckedRequest['headers'] = { 'content-type': 'application/json' }): CheckedRequest => {
  const url = new URL(path, 'http://host');
  return { method, path: url.pathname, query: url.searchParams, headers, body };
};

describe('ApiDescription', () => {
  it('names the operation by method and path template, the tighter template first', () => {
    expect(github.match('PATCH', '/repos/o/r/issues/comments/7')).toMatchObject({ template: '/repos/{owner}/{repo}/issues/comments/{comment_id}', pathValues: { owner: 'o', repo: 'r', comment_id: '7' } });
    expect(github.match('GET', '/repos/o/r/issues/7/comments')).toMatchObject({ template: '/repos/{owner}/{repo}/issues/{issue_number}/comments', pathValues: { issue_number: '7' } });
    expect(gitlab.match('POST', `/api/v4/projects/group%2Fshop/statuses/${sha}`)?.pathValues).toEqual({ id: 'group/shop', sha });
    expect(github.match('DELETE', '/repos/o/r/issues/comments/7')).toBeUndefined();
    expect(github.check(request('GET', '/user')).problems).toEqual(['GET /user is no operation of github-openapi-subset.json']);
  });

  it('reads an OpenAPI 3 requestBody and $ref parameters (GitHub)', () => {
    expect(github.check(request('POST', `/repos/o/r/statuses/${sha}`, { state: 'success', target_url: null, description: null, context: 'ci' })).problems).toEqual([]);
    expect(github.check(request('POST', `/repos/o/r/statuses/${sha}`, { context: 7 })).problems).toEqual([
      'POST /repos/{owner}/{repo}/statuses/{sha}: the body: state is required',
      'POST /repos/{owner}/{repo}/statuses/{sha}: the body.context is not a string',
    ]);
    expect(github.check(request('POST', `/repos/o/r/statuses/${sha}`)).problems).toEqual(['POST /repos/{owner}/{repo}/statuses/{sha}: the body is required']);
    expect(github.check(request('GET', '/repos/o/r/issues/1/comments?page=0x2&since=yesterday&sort=asc')).problems).toEqual([
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments: query parameter page "0x2" is not a number',
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments: query parameter sort is not in the description',
    ]);
  });

  it('reads a Swagger 2.0 body parameter, definitions and an API key header (GitLab)', () => {
    const path = `/api/v4/projects/7/statuses/${sha}`;
    expect(gitlab.check(request('POST', path, { state: 'canceled', name: 'x', coverage: 99.5 }, { 'content-type': 'application/json', 'private-token': 't' }), { token: 't' }).problems).toEqual([]);
    expect(gitlab.check(request('POST', path, { state: 'running', pipeline_id: 1.5 }, { 'content-type': 'application/json', authorization: 'Bearer t' }), { token: 't' }).problems).toEqual([
      'POST /api/v4/projects/{id}/statuses/{sha}: the body.pipeline_id is not an integer',
      'POST /api/v4/projects/{id}/statuses/{sha}: no private-token header carries the token',
    ]);
  });

  it('lets a host ignore query parameters it is known to ignore, and no more (Gitea)', () => {
    const list = request('GET', '/repos/o/r/issues/3/comments?page=1&per_page=100&limit=5');
    expect(gitea.check(list, { ignoreQuery: ['page', 'per_page'] }).problems).toEqual(['GET /repos/{owner}/{repo}/issues/{index}/comments: query parameter limit is not in the description']);
    expect(gitea.check(request('POST', `/repos/o/r/statuses/${sha}`, { state: 'warning', context: 'c' })).problems).toEqual([]);
    expect(gitea.check(request('POST', `/repos/o/r/statuses/${sha}`, ['pending'])).problems).toEqual(['POST /repos/{owner}/{repo}/statuses/{sha}: the body is not an object']);
  });

  it('checkValue: nullable, oneOf, arrays and maxLength', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', maxLength: 3 } }, id: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, note: { type: 'string', nullable: true } } };
    expect(checkValue({ tags: ['ok', 'long'], id: true, note: null }, schema, 'v', github)).toEqual(['v.tags[1] is longer than 3 characters', 'v.id matches none of its oneOf schemas']);
    expect(checkValue({ tags: [], id: 4, note: 'n' }, schema, 'v', github)).toEqual([]);
  });
});
