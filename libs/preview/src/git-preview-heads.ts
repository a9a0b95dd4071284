import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PreviewHead } from './run-preview-job';
import type { PreviewSource } from './preview-revision';

/** FollowableSource is a source that can follow another ref in a folder of its own (GitSource fits it). */
export interface FollowableSource {
  readonly name: string;
  followingRef(ref: { branch: string } | { commit: string }, cacheDir: string): PreviewSource & {
    open(): Promise<void>;
    poll(): Promise<{ revision: string }>;
    close(): Promise<void>;
  };
}

const commitPattern = /^[0-9a-f]{40}$/;
let opened = 0;

/**
 * openGitPreviewHead reads a branch (refs/heads/ may be given) or a commit id of a source's own
 * repository, with its credentials, into a fresh folder under `cacheRoot`; close removes it.
 */
export async function openGitPreviewHead(source: FollowableSource, ref: string, cacheRoot: string): Promise<PreviewHead> {
  const wanted = commitPattern.test(ref) ? { commit: ref } : { branch: ref.replace(/^refs\/heads\//, '') };
  opened += 1;
  const folder = join(cacheRoot, 'previews', `${source.name}-${createHash('sha256').update(ref).digest('hex').slice(0, 16)}-${process.pid}-${opened}`);
  const head = source.followingRef(wanted, folder);
  const close = async () => {
    await head.close();
    await rm(folder, { recursive: true, force: true });
  };
  try {
    await head.open();
    const { revision } = await head.poll();
    return { source: head, revision, close };
  } catch (error) {
    await close();
    throw error;
  }
}
