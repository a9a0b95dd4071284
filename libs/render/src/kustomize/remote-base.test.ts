import { describe, expect, it } from 'vitest';
import { parseRemoteBase } from './remote-base';

describe('parseRemoteBase', () => {
  it('reads the forms kustomize documents, splitting repository, folder and ref', () => {
    expect(parseRemoteBase('https://github.com/org/repo//deploy/base?ref=v1.2.0')).toEqual({
      base: { entry: 'https://github.com/org/repo//deploy/base?ref=v1.2.0', repository: 'https://github.com/org/repo', key: 'https://github.com/org/repo', host: 'github.com', folder: 'deploy/base', ref: 'v1.2.0' },
    });
    expect(parseRemoteBase('git::https://github.com/org/repo//deploy/base?ref=v1.2.0')).toMatchObject({ base: { repository: 'https://github.com/org/repo', folder: 'deploy/base' } });
    expect(parseRemoteBase('https://gitlab.example.com/group/sub/repo.git/deploy/base?version=abc')).toMatchObject({ base: { repository: 'https://gitlab.example.com/group/sub/repo.git', folder: 'deploy/base', ref: 'abc' } });
    expect(parseRemoteBase('https://github.com/org/repo.git?ref=main')).toMatchObject({ base: { repository: 'https://github.com/org/repo.git', folder: '.' } });
    expect(parseRemoteBase('http://127.0.0.1:8080/bases.git//base')).toMatchObject({ base: { host: '127.0.0.1:8080', folder: 'base' } });
    expect((parseRemoteBase('https://github.com/org/repo//base') as { base: object }).base).not.toHaveProperty('ref');
  });

  it('spells one repository one way: host case, trailing dot, default port, `.git/` against `.git//`', () => {
    const keys = [
      'https://GitHub.COM/org/repo.git//base?ref=v1',
      'https://github.com./org/repo.git//base?ref=v1',
      'https://github.com:443/org/repo.git//base?ref=v1',
      'https://github.com/org/repo.git/base?ref=v1',
      'git::https://github.com/org/repo.git//base/?ref=v1',
    ].map((entry) => parseRemoteBase(entry));
    for (const parsed of keys) expect(parsed).toMatchObject({ base: { key: 'https://github.com/org/repo.git', host: 'github.com', folder: 'base', ref: 'v1' } });
  });

  it.each([
    ['git@github.com:org/repo//base?ref=v1', /is an SSH remote base; Tidemark fetches remote bases over https only/],
    ['ssh://git@github.com/org/repo//base?ref=v1', /is an SSH remote base/],
    ['github.com/org/repo//base?ref=v1', /is not an https URL; write it as https:\/\/host/],
    ['file:///etc//passwd', /is not an https URL/],
    ['http://github.com/org/repo//base', /uses http:\/\/; remote bases are fetched over https/],
    ['https://token:x@github.com/org/repo//base', /carries credentials in the URL/],
    ['https://github.com@evil.example/org/repo//base', /carries credentials in the URL/],
    ['https://github.com/org/repo/base?ref=v1', /does not say where the repository ends/],
    ['https://github.com/org/repo//../../etc?ref=v1', /leads out of its repository/],
    ['https://github.com/../repo//base', /does not name a repository path/],
    ['https://github.com/org/repo//base?ref=v1&ref=v2', /names more than one ref/],
    ['https://github.com/org/repo//base?ref=--upload-pack=x', /is not a branch, tag or commit name/],
    ['https://github.com/org/repo//base?submodules=true', /never follows submodules/],
    ['https://github.com/org/repo//base?token=x', /query parameter "token"/],
  ])('refuses %s', (entry, problem) => {
    expect(parseRemoteBase(entry)).toEqual({ problem: expect.stringMatching(problem) });
  });
});
