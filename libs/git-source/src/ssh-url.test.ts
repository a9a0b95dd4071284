import { describe, expect, it } from 'vitest';
import { knownHostsName, parseSshUrl, uploadPackCommand } from './ssh-url';

describe('parseSshUrl', () => {
  it.each([
    ['ssh://git@github.com/org/repo.git', { user: 'git', host: 'github.com', port: 22, path: '/org/repo.git' }],
    ['ssh://deploy@git.example.com:2222/srv/repo.git', { user: 'deploy', host: 'git.example.com', port: 2222, path: '/srv/repo.git' }],
    ['git+ssh://git.example.com/~alice/repo.git', { user: 'git', host: 'git.example.com', port: 22, path: '~alice/repo.git' }],
    ['ssh://git@[::1]:2200/repo.git', { user: 'git', host: '::1', port: 2200, path: '/repo.git' }],
    ['git@github.com:org/repo.git', { user: 'git', host: 'github.com', port: 22, path: 'org/repo.git' }],
    ['github.com:org/repo.git', { user: 'git', host: 'github.com', port: 22, path: 'org/repo.git' }],
    ['git@gitlab.example.com:/srv/git/repo.git', { user: 'git', host: 'gitlab.example.com', port: 22, path: '/srv/git/repo.git' }],
    ['git@[2001:db8::1]:org/repo.git', { user: 'git', host: '2001:db8::1', port: 22, path: 'org/repo.git' }],
  ])('reads %s as git does', (url, target) => {
    expect(parseSshUrl(url)).toEqual({ target });
  });

  it.each(['https://github.com/org/repo.git', 'http://127.0.0.1:3000/r.git', 'C:\\repo', 'not a url'])('leaves %s to the HTTP rules', (url) => {
    expect(parseSshUrl(url)).toBeUndefined();
  });

  it.each([
    ['ssh://git:secret@github.com/org/repo.git', 'must not contain a password'],
    ['ssh://github.com/org/repo.git?token=x', 'must not have a query'],
    ['ssh://-oProxyCommand=touch%20x/repo.git', 'invalid host name'],
    ['-oProxyCommand=x:repo.git', 'invalid host name'],
    ['-oProxyCommand=x@host:repo.git', 'invalid user name'],
    ['git@github.com:-u/repo.git', 'starts with "-"'],
    ['git@github.com:', 'names no repository path'],
    ['git@github.com:org/repo\n.git', 'control character'],
    ['ssh://github.com/org/repo%0a.git', 'control character'],
  ])('refuses %s', (url, problem) => {
    expect(parseSshUrl(url)).toEqual({ problem: expect.stringContaining(problem) });
  });
});

describe('knownHostsName and uploadPackCommand', () => {
  it('names the host as known_hosts does, and quotes the path as git does', () => {
    expect(knownHostsName({ host: 'github.com', port: 22 })).toBe('github.com');
    expect(knownHostsName({ host: '127.0.0.1', port: 2222 })).toBe('[127.0.0.1]:2222');
    expect(uploadPackCommand({ user: 'git', host: 'h', port: 22, path: "/srv/it's; rm -rf x.git" })).toBe("git-upload-pack '/srv/it'\\''s; rm -rf x.git'");
  });
});
