import * as fs from 'node:fs';
import git from 'isomorphic-git';

/**
 * readCommitTime returns when a commit was made (its committer time, to the second), read
 * from a source's local object cache; undefined when the cache does not hold the commit.
 * Metrics use it as the start of commit-to-live latency.
 */
export async function readCommitTime(cacheDir: string, revision: string): Promise<Date | undefined> {
  try {
    const { commit } = await git.readCommit({ fs, gitdir: cacheDir, oid: revision });
    return new Date(commit.committer.timestamp * 1000);
  } catch {
    return undefined;
  }
}
