import { describe, expect, it } from 'vitest';
import { isUnder, outermostFolders, resolveRepoPath } from './repo-path';

describe('resolveRepoPath', () => {
  it('resolves ../ bases anywhere inside the repository', () => {
    expect(resolveRepoPath('deploy/overlays/staging', '../../../base')).toBe('base');
    expect(resolveRepoPath('deploy/overlays/staging', './patch.yaml')).toBe('deploy/overlays/staging/patch.yaml');
    expect(resolveRepoPath('.', 'base/')).toBe('base');
    expect(resolveRepoPath('a', '..')).toBe('.');
  });

  it('refuses paths past the root and absolute paths', () => {
    expect(resolveRepoPath('deploy/overlays/escape', '../../../../outside')).toBeUndefined();
    expect(resolveRepoPath('.', '..')).toBeUndefined();
    expect(resolveRepoPath('a', '/etc/passwd')).toBeUndefined();
    expect(resolveRepoPath('a', 'b\\..\\..\\c')).toBeUndefined();
  });
});

describe('folders', () => {
  it('tells what lies under a folder, and keeps the outermost of nested folders', () => {
    expect(isUnder('base/x.yaml', 'base')).toBe(true);
    expect(isUnder('base2/x.yaml', 'base')).toBe(false);
    expect(isUnder('anything', '.')).toBe(true);
    expect(outermostFolders(['a/b', 'a', 'c', 'a/b/c', 'ab'])).toEqual(['a', 'ab', 'c']);
  });
});
