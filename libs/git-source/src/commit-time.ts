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

/** CommitSummary is what a person recognises a commit by. Never an e-mail address. */
export interface CommitSummary {
  /** The first line of the message, at most 200 characters. */
  message: string;
  author: string;
  /** Author time (RFC 3339). */
  time: string;
}

/**
 * readCommitSummary reads a commit's subject line, author name and time; undefined when the cache
 * does not hold it. `packIndexes` is isomorphic-git's cache of parsed pack indexes (a GitStore's):
 * without it every pack index of the folder is read again, one pack per fetch.
 */
export async function readCommitSummary(cacheDir: string, revision: string, packIndexes?: object): Promise<CommitSummary | undefined> {
  try {
    const { commit } = await git.readCommit({ fs, gitdir: cacheDir, oid: revision, ...(packIndexes ? { cache: packIndexes } : {}) });
    const subject = commit.message.split('\n', 1)[0] ?? '';
    return { message: subject.slice(0, 200), author: commit.author.name.slice(0, 100), time: new Date(commit.author.timestamp * 1000).toISOString() };
  } catch {
    return undefined;
  }
}
