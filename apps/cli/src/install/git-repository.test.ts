import { describe, expect, it } from 'vitest';
import { checkBranch, checkGitUrl, checkRepoPath, gitCredentialsOf } from './git-repository';

describe('bootstrap inputs', () => {
  it('accepts https and loopback http, refuses credentials, other schemes and plain http elsewhere', () => {
    expect(checkGitUrl('https://git.example.com/fleet.git')).toBe('https://git.example.com/fleet.git');
    expect(checkGitUrl('http://127.0.0.1:3000/fleet.git')).toBe('http://127.0.0.1:3000/fleet.git');
    expect(() => checkGitUrl('https://token@git.example.com/fleet.git')).toThrow(/must not carry credentials/);
    expect(() => checkGitUrl('http://git.example.com/fleet.git')).toThrow(/must be https/);
    // Spelled two ways: a host that starts like loopback is not loopback.
    expect(() => checkGitUrl('http://127.0.0.1.example.com/fleet.git')).toThrow(/must be https/);
    expect(() => checkGitUrl('file:///etc/passwd')).toThrow(/must be https/);
    expect(() => checkGitUrl('not a url')).toThrow(/is not a URL/);
  });

  it('accepts a folder inside the repository and refuses one out of it', () => {
    expect(checkRepoPath('clusters/dev/')).toBe('clusters/dev');
    for (const path of ['../x', 'clusters/../../x', '/etc', 'a//b', './a', '', 'a b', 'x'.repeat(201)]) {
      expect(() => checkRepoPath(path), path).toThrow(/--path must be a folder inside the repository/);
    }
  });

  it('refuses a branch git would refuse', () => {
    expect(checkBranch('main')).toBe('main');
    for (const branch of ['-x', 'a..b', 'a.lock', 'a/', 'a b', '']) expect(() => checkBranch(branch), branch).toThrow(/--branch is not a branch name/);
  });

  it('takes credentials from the environment, never empty ones', async () => {
    expect(await gitCredentialsOf(undefined, { TIDEMARK_GIT_TOKEN: 't0k' })).toEqual({ username: 'git', password: 't0k' });
    expect(await gitCredentialsOf(undefined, { TIDEMARK_GIT_USERNAME: 'ann', TIDEMARK_GIT_PASSWORD: 'pw' })).toEqual({ username: 'ann', password: 'pw' });
    expect(await gitCredentialsOf(undefined, { TIDEMARK_GIT_PASSWORD: '' })).toBeUndefined();
    await expect(gitCredentialsOf('/nonexistent/credentials.json', {})).rejects.toThrow(/cannot read the Git credentials file/);
  });
});
